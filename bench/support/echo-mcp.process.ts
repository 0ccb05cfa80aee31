import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { ECHO_MCP_READY_PREFIX } from './echo-mcp.server';

/** The benchmark MCP server running in its own process. */
export interface EchoMcpProcess {
  /** Its streamable HTTP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

const REPO_ROOT = resolve(__dirname, '..', '..');

/** Starts bench/support/echo-mcp.server.ts as a child process and resolves once it listens. */
export function startEchoMcpProcess(timeoutMs = 30_000): Promise<EchoMcpProcess> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'bench/support/echo-mcp.server.ts'], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    process.off('exit', killOnExit);
    child.stdin?.end(); // the server exits when its stdin closes
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((ready, fail) => {
    let output = '';
    const timer = setTimeout(() => void stop().then(() => fail(new Error(`echo MCP server did not start in ${timeoutMs} ms:\n${output}`))), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const line = output.split('\n').find((l) => l.startsWith(ECHO_MCP_READY_PREFIX));
      if (!line) return;
      clearTimeout(timer);
      ready({ url: `http://127.0.0.1:${line.slice(ECHO_MCP_READY_PREFIX.length).trim()}/mcp`, pid: child.pid, stop });
    });
    void exited.then(() => {
      clearTimeout(timer);
      fail(new Error(`echo MCP server exited during start-up:\n${output}`));
    });
  });
}
