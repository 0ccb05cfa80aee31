import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

/** A benchmark peer (MCP server, floor proxy) running in its own process. */
export interface BenchProcess {
  /** The port it printed once listening. */
  port: number;
  pid: number | undefined;
  stop(): Promise<void>;
}

const REPO_ROOT = resolve(__dirname, '..', '..');

/**
 * Starts `script` (a TypeScript file under the repository) with @swc-node/register and resolves once it prints
 * `<readyPrefix><port>`. The process exits when its stdin closes (stop), or is killed with this one.
 */
export function startBenchProcess(
  script: string,
  readyPrefix: string,
  env: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<BenchProcess> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', script], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    process.off('exit', killOnExit);
    child.stdin?.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((ready, fail) => {
    let output = '';
    const timer = setTimeout(
      () => void stop().then(() => fail(new Error(`${script} did not start in ${timeoutMs} ms:\n${output}`))),
      timeoutMs,
    );
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const line = output.split('\n').find((l) => l.startsWith(readyPrefix));
      if (!line) return;
      clearTimeout(timer);
      ready({ port: Number(line.slice(readyPrefix.length).trim()), pid: child.pid, stop });
    });
    void exited.then(() => {
      clearTimeout(timer);
      fail(new Error(`${script} exited during start-up:\n${output}`));
    });
  });
}
