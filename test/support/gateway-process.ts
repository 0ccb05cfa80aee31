import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { Agent, request } from 'undici';

/** The platform admin key every gateway child process starts with (unless the options name another). */
export const GATEWAY_PROCESS_ADMIN_KEY = 'process-admin-key-0123456789abcdef';

/** The repository root: `-r @swc-node/register` and the `.swcrc` path aliases resolve from there. */
const REPO_ROOT = resolve(__dirname, '..', '..');
/** Output kept for failure messages (the tail, in characters). */
const OUTPUT_TAIL_CHARS = 16_000;
/** Environment passed through from the parent; every gateway setting is explicit instead. */
const INHERITED_ENV = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ', 'SWC_NODE_CACHE_DIR'];
const PORT_ATTEMPTS = 3;

/** Options of {@link startGatewayProcess}. */
export interface GatewayProcessOptions {
  /** DATABASE_URL: `sqlite:<file>` or `mysql://...`. */
  databaseUrl: string;
  /** GATEWAY_INSTANCE_ID (journal lease owner); default `gw-<random>`. */
  instanceId?: string;
  /** More gateway settings (e.g. GATEWAY_FAULT_INJECTION, JOURNAL_LEASE_MS); they win over the defaults. */
  env?: Record<string, string>;
  /** Arguments for node before the register hook, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
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
 * The gateway (`src/main.ts` through `@swc-node/register`, no build) running as a child process on
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
    this.exited = new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
  }

  /**
   * Spawns the gateway on a free port and resolves once GET /health answers 200. Rejects with the
   * process's output when it exits first or does not become ready in time.
   */
  static async start(options: GatewayProcessOptions): Promise<GatewayProcess> {
    for (let attempt = 1; ; attempt++) {
      const gateway = GatewayProcess.spawn(options, await freePort());
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

  private static spawn(options: GatewayProcessOptions, port: number): GatewayProcess {
    const instanceId = options.instanceId ?? `gw-${randomBytes(4).toString('hex')}`;
    const env: Record<string, string> = {
      ...Object.fromEntries(INHERITED_ENV.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]!])),
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
      ...options.env,
    };
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), '-r', '@swc-node/register', 'src/main.ts'], {
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
  async call<T = any>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<GatewayResponse<T>> {
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
        throw new Error(`gateway ${this.instanceId} exited during start-up (code ${exit.code}, signal ${exit.signal}):\n${this.output}`);
      }
      try {
        const res = await this.call('GET', '/health');
        if (res.status === 200) return;
        last = `GET /health answered ${res.status}`;
      } catch (err) {
        last = (err as Error).message;
      }
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 50));
    }
    throw new Error(`gateway ${this.instanceId} was not healthy within ${timeoutMs} ms (${last}):\n${this.output}`);
  }
}

/** Shorthand for {@link GatewayProcess.start}. */
export const startGatewayProcess = (options: GatewayProcessOptions): Promise<GatewayProcess> => GatewayProcess.start(options);

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolvePort(port));
    });
  });
}
