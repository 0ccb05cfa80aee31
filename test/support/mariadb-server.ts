import { ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findFreePort } from './free-port';
import { findMariaDbBinaries, MariaDbBinaries } from './mariadb-binaries';

const run = promisify(execFile);

/** A running throwaway MariaDB server. */
export interface MariaDbServer {
  /** `mysql://gateway:<password>@127.0.0.1:<port>/`: user `gateway` has ALL PRIVILEGES ON *.*. */
  url: string;
  port: number;
  /** Shuts the server down (SIGTERM, then SIGKILL) and removes its data directory; safe to call twice. */
  stop(): Promise<void>;
}

/** Options of {@link startMariaDbServer}. */
export interface MariaDbServerOptions {
  /** More `mariadbd` arguments, e.g. {@link MARIADB_TEST_SPEED_ARGS}. */
  extraServerArgs?: readonly string[];
  /** How long to wait for the server to answer a ping; default 30 s. */
  startTimeoutMs?: number;
}

/** MySQL 8's default sql_mode, so tests reject SQL that MySQL 8 would reject. */
export const MYSQL8_SQL_MODE =
  'ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';

/**
 * No fsync at commit, no doublewrite: a throwaway test server loses nothing it needs and DDL runs about
 * 1.3-3x faster. Benchmarks that measure MySQL durability must not pass these.
 */
export const MARIADB_TEST_SPEED_ARGS: readonly string[] = [
  '--innodb-flush-log-at-trx-commit=0',
  '--innodb-doublewrite=0',
  '--innodb-flush-method=nosync',
];

const PORT_ATTEMPTS = 3;

/**
 * Starts a throwaway MariaDB on a free port of 127.0.0.1 with a fresh data directory under the OS temp
 * directory (see shared/docs/stack.md, "MySQL in tests and CI"). Root logs in through the Unix socket only; the
 * returned URL uses a `gateway` user with a random password. Used by the Jest global setup and by bench/.
 * If the process exits without calling stop(), the server is killed and its directory removed.
 */
export async function startMariaDbServer(options: MariaDbServerOptions = {}): Promise<MariaDbServer> {
  const bin = findMariaDbBinaries();
  if (!bin) {
    throw new Error(
      'MariaDB is not installed: run `apt-get install -y --no-install-recommends mariadb-server mariadb-client`.',
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'gw-mariadb-'));
  const osUser = userInfo().username;
  let child: ChildProcess | undefined;
  const killOnExit = () => {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', killOnExit);
  try {
    await run(bin.installDb, [
      '--no-defaults',
      `--user=${osUser}`,
      `--datadir=${dir}/data`,
      '--skip-test-db',
      '--auth-root-authentication-method=socket',
      `--auth-root-socket-user=${osUser}`,
    ]);
    let port = 0;
    for (let attempt = 1; !port; attempt++) {
      const candidate = await findFreePort();
      child = spawnServer(bin, dir, osUser, candidate, options.extraServerArgs ?? []);
      if (await waitUntilReady(bin, dir, osUser, child, options.startTimeoutMs ?? 30_000)) port = candidate;
      else if (attempt >= PORT_ATTEMPTS || !serverLog(dir).includes('Bind on TCP/IP port')) {
        const exit = child.exitCode ?? child.signalCode;
        throw new Error(`mariadbd did not start (exit ${exit}):\n${serverLog(dir).slice(-2000)}`);
      }
    }
    const password = randomBytes(18).toString('hex');
    await run(bin.client, [
      '--no-defaults',
      `--socket=${dir}/sock`,
      `-u${osUser}`,
      '-e',
      `CREATE USER 'gateway'@'127.0.0.1' IDENTIFIED BY '${password}'; ` +
        `GRANT ALL PRIVILEGES ON *.* TO 'gateway'@'127.0.0.1';`,
    ]);
    const server = child!;
    let stopping: Promise<void> | undefined;
    return {
      url: `mysql://gateway:${password}@127.0.0.1:${port}/`,
      port,
      stop: () => (stopping ??= stopServer(server, dir, killOnExit)),
    };
  } catch (err) {
    process.off('exit', killOnExit);
    if (child) await stopServer(child, dir, killOnExit);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

function spawnServer(
  bin: MariaDbBinaries,
  dir: string,
  osUser: string,
  port: number,
  extra: readonly string[],
): ChildProcess {
  mkdirSync(join(dir, 'tmp'), { recursive: true });
  const log = openSync(join(dir, 'mariadbd.log'), 'a');
  try {
    const child = spawn(
      bin.server,
      [
        '--no-defaults',
        `--user=${osUser}`,
        `--datadir=${dir}/data`,
        `--socket=${dir}/sock`,
        `--pid-file=${dir}/pid`,
        // Its own folder for internal temporary tables, not the machine's /tmp shared with other servers.
        `--tmpdir=${dir}/tmp`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        '--skip-name-resolve',
        '--character-set-server=utf8mb4',
        '--collation-server=utf8mb4_unicode_ci',
        `--sql-mode=${MYSQL8_SQL_MODE}`,
        '--default-time-zone=+00:00',
        '--max-connections=500',
        '--innodb-buffer-pool-dump-at-shutdown=OFF',
        '--innodb-buffer-pool-load-at-startup=OFF',
        ...extra,
      ],
      // Output to a file, never to our stdout: a server holding the pipe would keep CI readers waiting.
      { stdio: ['ignore', log, log] },
    );
    child.on('error', () => undefined); // a failed spawn shows up as exitCode below
    child.unref(); // never keeps a benchmark alive; the 'exit' hook still kills it
    return child;
  } finally {
    closeSync(log);
  }
}

async function waitUntilReady(
  bin: MariaDbBinaries,
  dir: string,
  osUser: string,
  child: ChildProcess,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (hasExited(child)) return false;
    try {
      await run(bin.admin, ['--no-defaults', `--socket=${dir}/sock`, `-u${osUser}`, 'ping'], { timeout: 5000 });
      return true;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  child.kill('SIGKILL');
  throw new Error(`mariadbd did not answer a ping within ${timeoutMs} ms:\n${serverLog(dir).slice(-2000)}`);
}

/** SIGTERM is mariadbd's normal shutdown (what `mariadb-admin shutdown` asks for, without its 1 s poll). */
async function stopServer(child: ChildProcess, dir: string, killOnExit: () => void): Promise<void> {
  process.off('exit', killOnExit);
  if (!hasExited(child)) {
    child.kill('SIGTERM');
    if (!(await waitForExit(child, 15_000))) {
      child.kill('SIGKILL');
      await waitForExit(child, 5_000);
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null || child.pid === undefined;
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (hasExited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(hasExited(child)), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

function serverLog(dir: string): string {
  try {
    return readFileSync(join(dir, 'mariadbd.log'), 'utf8');
  } catch {
    return '';
  }
}
