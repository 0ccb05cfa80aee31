import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { SandboxRunner } from '@app/modules/sandbox/sandbox-runner.service';
import { waitFor } from '@test/support/wait-for';
import {
  describeWithBubblewrap,
  processesNaming,
  startedSandboxRunner,
  tempFolder,
  uniqueToken,
} from './sandbox-runner.fixture';

const MAX_PROCESSES = 16;

describeWithBubblewrap('SandboxRunner limits (real bubblewrap)', () => {
  let runner: SandboxRunner;
  let ws: ReturnType<typeof tempFolder>;

  beforeAll(async () => {
    runner = await startedSandboxRunner({
      SANDBOX_TIMEOUT_MS: '20000',
      SANDBOX_MEMORY_MB: '64',
      SANDBOX_MAX_PROCESSES: String(MAX_PROCESSES),
      SANDBOX_MAX_FILE_MB: '1',
      SANDBOX_OUTPUT_MAX_BYTES: '1024',
    });
    expect(runner.unavailableReason()).toBe('');
  });
  afterAll(() => runner.onApplicationShutdown());
  beforeEach(() => (ws = tempFolder('limits')));
  afterEach(() => ws.remove());

  it('reports a non-zero exit as EXITED with its code, stdout and stderr apart', async () => {
    const result = await runner.run({ workspaceDir: ws.path, command: 'echo out; echo err >&2; exit 3' });
    expect(result).toMatchObject({
      outcome: 'EXITED',
      exitCode: 3,
      stdout: 'out\n',
      stderr: 'err\n',
      truncated: false,
    });
    expect(result.reason).toBeUndefined();
  });

  it('kills a command past its time limit, background processes included, and returns TIMED_OUT', async () => {
    const token = uniqueToken('timeout');
    const result = await runner.run({
      workspaceDir: ws.path,
      command: `# ${token}\nsleep 60 & sleep 60`,
      timeoutMs: 1000,
    });
    expect(result).toMatchObject({ outcome: 'TIMED_OUT', exitCode: null });
    expect(result.reason).toMatch(/time limit of 1000 ms/);
    expect(result.durationMs).toBeLessThan(30_000);
    expect(processesNaming(token)).toEqual([]);
  });

  it('ends what the command left running in the background when it exits', async () => {
    const token = uniqueToken('daemon');
    const result = await runner.run({
      workspaceDir: ws.path,
      command: `# ${token}\n(setsid sleep 60 > /dev/null 2>&1 &); nohup sleep 61 > /dev/null 2>&1 & echo left`,
    });
    expect(result).toMatchObject({ outcome: 'EXITED', exitCode: 0, stdout: 'left\n' });
    expect(processesNaming(token)).toEqual([]);
  });

  it('caps timeoutMs by SANDBOX_TIMEOUT_MS', async () => {
    const capped = await startedSandboxRunner({ SANDBOX_TIMEOUT_MS: '500' });
    const result = await capped.run({ workspaceDir: ws.path, command: 'sleep 30', timeoutMs: 600_000 });
    expect(result.outcome).toBe('TIMED_OUT');
    expect(result.reason).toMatch(/time limit of 500 ms/);
    await capped.onApplicationShutdown();
  });

  it('contains a fork bomb: at most SANDBOX_MAX_PROCESSES at once, the host still forks, nothing left afterwards', async () => {
    const token = uniqueToken('forkbomb');
    let peak = 0;
    let hostForks = 0;
    const run = runner.run({
      workspaceDir: ws.path,
      // Each shell, once it has forked, blocks reading a FIFO that no one writes (a builtin: no fork needed, so it
      // holds on even when the sandbox has no process left), so the storm lasts until the time limit ends it however
      // busy the machine is; the time limit then has to end every process the bomb left.
      command: `# ${token}\nmkfifo hold; exec 3<>hold; bomb() { bomb | bomb & read x <&3; }; bomb`,
      timeoutMs: 3_000,
    });
    let running = true;
    void run.finally(() => (running = false));
    // The host forks beside the bomb; the sampler looks as often as it can: on a loaded machine the storm may last
    // only a few milliseconds before the bomb's shells, out of processes, give up.
    const hostForking = (async () => {
      while (running) {
        await promisify(execFile)('/bin/true');
        hostForks++;
      }
    })();
    while (running) {
      peak = Math.max(peak, processesNaming(token).length);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await hostForking;
    const result = await run;
    expect(result.outcome).toBe('TIMED_OUT');
    expect(result.stderr).toMatch(/Cannot fork|Resource temporarily unavailable/);
    // The sandbox's processes plus bubblewrap's own outside process, which also names the command.
    expect(peak).toBeLessThanOrEqual(MAX_PROCESSES + 1);
    expect(peak).toBeGreaterThan(2);
    expect(hostForks).toBeGreaterThan(0);
    expect(processesNaming(token)).toEqual([]);
  });

  it('counts processes per sandbox: concurrent commands do not share SANDBOX_MAX_PROCESSES', async () => {
    // Each command holds 10 processes at once; three share one host uid, so a per-uid count (30) would refuse forks.
    const command =
      'i=0; while [ $i -lt 8 ]; do sleep 2 & i=$((i+1)); done; sleep 0.5; echo "running $(ls /proc | grep -c "^[0-9]")"';
    const results = await Promise.all([1, 2, 3].map(() => runner.run({ workspaceDir: ws.path, command })));
    for (const result of results) {
      expect(result).toMatchObject({ outcome: 'EXITED', exitCode: 0, stderr: '' });
      expect(result.stdout).toMatch(/^running 1[0-3]\n$/);
    }
  });

  it('limits memory per process (RLIMIT_AS): a large allocation fails, a small one works', async () => {
    const result = await runner.run({
      workspaceDir: ws.path,
      command: 'head -c 10000000 /dev/zero | tail -n 1 | wc -c; head -c 200000000 /dev/zero | tail -n 1 | wc -c',
    });
    expect(result.stdout).toBe('10000000\n0\n');
    expect(result.stderr).toMatch(/memory exhausted/);
  });

  it('limits file size (RLIMIT_FSIZE): a write past SANDBOX_MAX_FILE_MB fails as "File too large", killing nothing; the private /tmp is that size too', async () => {
    const result = await runner.run({
      workspaceDir: ws.path,
      command: 'head -c 3000000 /dev/zero > big.bin; echo more >> big.bin; echo "went on after $?"',
    });
    expect(result).toMatchObject({ outcome: 'EXITED', exitCode: 0, stdout: 'went on after 1\n' });
    expect(result.stderr).toMatch(/^head: .*File too large\n.*echo: .*error\n$/);
    expect(statSync(join(ws.path, 'big.bin')).size).toBe(1024 * 1024);
    const tmp = await runner.run({
      workspaceDir: ws.path,
      command: [
        'for i in 1 2 3; do head -c 600000 /dev/zero > /tmp/f$i 2>/dev/null || echo "tmp full at $i"; done',
        'for i in 1 2 3; do head -c 600000 /dev/zero > /dev/shm/f$i 2>/dev/null || echo "shm full at $i"; done',
      ].join('; '),
    });
    expect(tmp.stdout).toBe('tmp full at 2\ntmp full at 3\nshm full at 2\nshm full at 3\n');
  });

  it('keeps at most SANDBOX_OUTPUT_MAX_BYTES per stream and closes it: an endless writer ends at once', async () => {
    const result = await runner.run({ workspaceDir: ws.path, command: 'yes', timeoutMs: 15_000 });
    expect(result.outcome).toBe('EXITED');
    // As `yes | head -c 1024`: SIGPIPE (141), or a write error (1) when the close races the write.
    expect([1, 128 + 13]).toContain(result.exitCode);
    expect(result.truncated).toBe(true);
    expect(result.stdout).toBe('y\n'.repeat(512));
    expect(result.reason).toMatch(/cut/);

    const stderr = await runner.run({ workspaceDir: ws.path, command: 'yes err >&2; echo done' });
    expect(stderr.truncated).toBe(true);
    expect(stderr.stderr.length).toBe(1024);
    expect(stderr.stdout).toBe('done\n');
  });

  it('cuts output on a UTF-8 character boundary', async () => {
    // "é\n" is 3 bytes: 1024 bytes end inside the 342nd "é", which is dropped whole.
    const result = await runner.run({ workspaceDir: ws.path, command: 'yes é' });
    expect(result.truncated).toBe(true);
    expect(result.stdout).toBe('é\n'.repeat(341));
    expect(result.stdout).not.toContain('\uFFFD');
  });

  it('kills everything on abort and returns ABORTED', async () => {
    const token = uniqueToken('abort');
    const controller = new AbortController();
    const run = runner.run({
      workspaceDir: ws.path,
      command: `# ${token}\ntouch started; sleep 60 & sleep 60`,
      signal: controller.signal,
    });
    await waitFor(() => existsSync(join(ws.path, 'started')), { description: 'the command to start' });
    controller.abort();
    const result = await run;
    expect(result).toMatchObject({ outcome: 'ABORTED', exitCode: null });
    expect(result.durationMs).toBeLessThan(30_000);
    expect(processesNaming(token)).toEqual([]);
  });

  it('does not start a command whose signal is already aborted', async () => {
    const result = await runner.run({
      workspaceDir: ws.path,
      command: 'touch ran',
      signal: AbortSignal.abort(),
    });
    expect(result.outcome).toBe('ABORTED');
    expect(existsSync(join(ws.path, 'ran'))).toBe(false);
  });
});
