import { ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { transformFileSync, version as swcVersion } from '@swc/core';
import { Agent, request } from 'undici';
import { findFreePort, listensOn } from './free-port';

/** The platform admin key every gateway child process starts with (unless the options name another). */
export const GATEWAY_PROCESS_ADMIN_KEY = 'process-admin-key-0123456789abcdef';

/** The repository root: sources, `.swcrc` and node_modules are found from there. */
const REPO_ROOT = resolve(__dirname, '..', '..');
/** Output kept for failure messages (the tail, in characters). */
const OUTPUT_TAIL_CHARS = 16_000;
/** Environment passed through from the parent; every gateway setting is explicit instead. */
const INHERITED_ENV = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ', 'SWC_NODE_CACHE_DIR'];
const PORT_ATTEMPTS = 3;
/** Preloaded into each gateway process: it exits once its parent is gone (see the file). */
const EXIT_WITH_PARENT = join(__dirname, 'exit-with-parent.js');
/** What the gateway is built from: the app and its migrations. */
const SOURCE_DIRS = ['src', 'migrations'];
/**
 * Builds older than this are removed from the temp directory when a new one is made (1.6 MB each; every
 * source edit makes a new one). A running gateway has loaded its modules at start, so removal is safe.
 */
const STALE_BUILD_MS = 3600_000;

/** Options of {@link startGatewayProcess}. */
export interface GatewayProcessOptions {
  /** DATABASE_URL: `sqlite:<file>` or `mysql://...`. */
  databaseUrl: string;
  /** GATEWAY_INSTANCE_ID (journal lease owner); default `gw-<random>`. */
  instanceId?: string;
  /** More gateway settings (e.g. GATEWAY_FAULT_INJECTION, JOURNAL_LEASE_MS); they win over the defaults. */
  env?: Record<string, string>;
  /** Arguments for node before the entry point, e.g. `--cpu-prof` or `-r <preload>`. */
  nodeArgs?: string[];
  /**
   * `prebuilt` (default): run `src/main.ts` compiled once per source state into the temp directory with the
   * project's .swcrc (start-up about 2-3x faster: no TypeScript in the child, no inline source maps).
   * `register`: `node -r @swc-node/register src/main.ts` (stack traces point at the .ts sources).
   */
  mode?: 'prebuilt' | 'register';
  /** How long to wait for GET /health; default 60 s (start-up takes several seconds on a busy 2-core box). */
  startTimeoutMs?: number;
}

/** How a child process ended. */
export interface GatewayExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A JSON answer of the gateway. */
export interface GatewayResponse<T = any> {
  status: number;
  body: T;
}

/**
 * The gateway (`src/main.ts`, see {@link GatewayProcessOptions.mode}) running as a child process on
 * 127.0.0.1, ready once GET /health answers. Tests kill it with SIGKILL to prove what survives a crash;
 * benchmarks measure it as a separate process, as production runs it.
 */
export class GatewayProcess {
  /** Settles when the process has exited (never rejects). */
  readonly exited: Promise<GatewayExit>;
  private readonly client = new Agent({ keepAliveTimeout: 10_000 });
  private output = '';

  private constructor(
    private readonly child: ChildProcess,
    /** The port it listens on. */
    readonly port: number,
    /** Its GATEWAY_INSTANCE_ID. */
    readonly instanceId: string,
    /** Its platform admin key. */
    readonly adminKey: string,
  ) {
    const capture = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
    };
    child.stdout?.on('data', capture);
    child.stderr?.on('data', capture);
    // For debugging a test or benchmark: show what the gateway writes to stderr as it happens.
    if (process.env.GATEWAY_PROCESS_STDERR === 'inherit')
      child.stderr?.on('data', (c: Buffer) => process.stderr.write(c));
    this.exited = new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
  }

  /**
   * Spawns the gateway on a free port and resolves once GET /health answers 200. Rejects with the
   * process's output when it exits first or does not become ready in time.
   */
  static async start(options: GatewayProcessOptions): Promise<GatewayProcess> {
    const entry =
      options.mode === 'register'
        ? ['-r', '@swc-node/register', 'src/main.ts']
        : [join(await prebuiltGateway(), 'src', 'main.js')];
    for (let attempt = 1; ; attempt++) {
      const gateway = GatewayProcess.spawn(options, entry, await findFreePort());
      try {
        await gateway.waitUntilHealthy(options.startTimeoutMs ?? 60_000);
        return gateway;
      } catch (err) {
        await gateway.kill();
        // Another process took the probed port between probe and bind: try another one.
        if (attempt < PORT_ATTEMPTS && gateway.output.includes('EADDRINUSE')) continue;
        throw err;
      }
    }
  }

  private static spawn(options: GatewayProcessOptions, entry: string[], port: number): GatewayProcess {
    const instanceId = options.instanceId ?? `gw-${randomBytes(4).toString('hex')}`;
    const env: Record<string, string> = {
      ...Object.fromEntries(INHERITED_ENV.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]!])),
      // The prebuilt tree lives outside the repository: bare imports resolve from its node_modules.
      NODE_PATH: join(REPO_ROOT, 'node_modules'),
      NODE_ENV: 'test',
      ADMIN_API_KEY: GATEWAY_PROCESS_ADMIN_KEY,
      DATABASE_URL: options.databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      GATEWAY_INSTANCE_ID: instanceId,
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DEMO_TOOLS_ENABLED: 'false',
      MCP_REPAIR_ENABLED: 'false',
      JOURNAL_SWEEP_INTERVAL_MS: '0',
      ...options.env,
    };
    const child = spawn(process.execPath, ['-r', EXIT_WITH_PARENT, ...(options.nodeArgs ?? []), ...entry], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.on('error', () => undefined); // a failed spawn shows as an exit below
    const gateway = new GatewayProcess(child, port, instanceId, env.ADMIN_API_KEY);
    // Never leave a gateway behind when the parent goes away without stopping it.
    const killOnExit = () => child.kill('SIGKILL');
    process.once('exit', killOnExit);
    void gateway.exited.then(() => process.off('exit', killOnExit));
    return gateway;
  }

  /** `http://127.0.0.1:<port>`. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** `Authorization` header of the platform admin. */
  get admin(): { Authorization: string } {
    return { Authorization: `Bearer ${this.adminKey}` };
  }

  /** Whether the process has exited. */
  get hasExited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** The tail of what the process printed (stdout and stderr interleaved), for failure messages. */
  outputTail(): string {
    return this.output;
  }

  /**
   * Sends one JSON request and returns status and parsed body. Rejects when the connection breaks
   * (e.g. the process died mid-request), never on an HTTP error status.
   */
  async call<T = any>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<GatewayResponse<T>> {
    const res = await request(`${this.url}${path}`, {
      method,
      dispatcher: this.client,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
  }

  /** SIGKILL (a crash: nothing is flushed or closed) and wait for the exit. Safe to call twice. */
  async kill(): Promise<GatewayExit> {
    if (!this.hasExited) this.child.kill('SIGKILL');
    await this.client.destroy().catch(() => undefined);
    return this.exited;
  }

  /** SIGTERM (Nest's shutdown hooks run), SIGKILL after `graceMs`; resolves with the exit. */
  async stop(graceMs = 10_000): Promise<GatewayExit> {
    if (!this.hasExited) this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
      await this.client.destroy().catch(() => undefined);
    }
  }

  /** Sends a signal without waiting (e.g. SIGUSR2 to a profiling preload). */
  signal(signal: NodeJS.Signals): void {
    if (!this.hasExited) this.child.kill(signal);
  }

  private async waitUntilHealthy(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = 'no answer yet';
    while (Date.now() < deadline) {
      if (this.hasExited) {
        const exit = await this.exited;
        throw new Error(
          `gateway ${this.instanceId} exited during start-up (code ${exit.code}, signal ${exit.signal}):\n${this.output}`,
        );
      }
      try {
        const res = await this.call('GET', '/health');
        // Another process may hold the port (it took it between the probe and this child's bind; this child then
        // exits with EADDRINUSE): a health answer counts only once this child is seen listening on the port.
        if (res.status === 200 && listensOn(this.child.pid, this.port)) return;
        last =
          res.status === 200
            ? `GET /health answered 200, but not from this process (pid ${this.child.pid}) yet`
            : `GET /health answered ${res.status}`;
      } catch (err) {
        last = (err as Error).message;
      }
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 50));
    }
    throw new Error(`gateway ${this.instanceId} was not healthy within ${timeoutMs} ms (${last}):\n${this.output}`);
  }
}

/** Shorthand for {@link GatewayProcess.start}. */
export const startGatewayProcess = (options: GatewayProcessOptions): Promise<GatewayProcess> =>
  GatewayProcess.start(options);

let building: Promise<string> | undefined;

/**
 * The directory of the compiled gateway (`src/**` and `migrations/**` as CommonJS, the .swcrc path aliases
 * rewritten to relative imports), made once per source state and shared by every process that needs it.
 */
function prebuiltGateway(): Promise<string> {
  building ??= Promise.resolve().then(buildGateway);
  return building;
}

function buildGateway(): string {
  const swcrc = readFileSync(join(REPO_ROOT, '.swcrc'), 'utf8');
  const files = SOURCE_DIRS.flatMap((dir) => listSources(join(REPO_ROOT, dir)));
  const hash = createHash('sha256').update(swcrc).update(swcVersion).update(process.version);
  for (const file of files) hash.update(relative(REPO_ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  const out = join(tmpdir(), `gw-process-build-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(out)) return out;
  const { $schema: _schema, ...config } = JSON.parse(swcrc);
  const options = { ...config, swcrc: false, sourceMaps: false, jsc: { ...config.jsc, baseUrl: REPO_ROOT } };
  const staging = `${out}.${process.pid}-${randomBytes(4).toString('hex')}`;
  for (const file of files) {
    const target = join(staging, relative(REPO_ROOT, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, transformFileSync(file, { ...options, filename: file }).code);
  }
  try {
    renameSync(staging, out);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // another process built the same sources first
  }
  removeStaleBuilds(out);
  return out;
}

function listSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listSources(join(dir, e.name)) : [join(dir, e.name)]))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts') && !f.endsWith('.d.ts'))
    .sort();
}

function removeStaleBuilds(keep: string): void {
  for (const name of readdirSync(tmpdir())) {
    const path = join(tmpdir(), name);
    if (!name.startsWith('gw-process-build-') || path === keep) continue;
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_BUILD_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // removed by another process meanwhile
    }
  }
}
