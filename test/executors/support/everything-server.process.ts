import { ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { waitFor } from '@test/support/wait-for';
import { findFreePort, listensOn } from '@test/support/free-port';

const ENTRY = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/**
 * `@modelcontextprotocol/server-everything` in a child process (started with node, so one PID stops it),
 * serving streamable HTTP on `/mcp` or SSE on `/sse`.
 */
export class EverythingServerProcess {
  private child?: ChildProcess;
  port = 0;

  constructor(readonly mode: 'streamableHttp' | 'sse') {}

  get url(): string {
    return `http://127.0.0.1:${this.port}${this.mode === 'sse' ? '/sse' : '/mcp'}`;
  }

  /** Starts the server (again on the same port after {@link stop}, like a redeployed service). */
  async start(): Promise<this> {
    if (this.port === 0) this.port = await findFreePort();
    this.child = spawn(process.execPath, [ENTRY, this.mode], {
      env: { ...process.env, PORT: String(this.port) },
      stdio: 'ignore',
    });
    const exited = new Promise<never>((_r, reject) =>
      this.child!.once('exit', (code) => reject(new Error(`server-everything exited with ${code}`))),
    );
    exited.catch(() => undefined);
    // The port counts as ours only once this child listens on it (another process may have taken it since the probe).
    const ready = async () => (await portOpen(this.port)) && listensOn(this.child?.pid, this.port);
    await Promise.race([
      waitFor(ready, { timeoutMs: 15000, description: `server-everything on ${this.port}` }),
      exited,
    ]);
    return this;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
    this.child = undefined;
  }
}
