import { createServer, type Server } from 'node:http';
import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { SandboxRunner } from '@app/modules/sandbox/sandbox-runner.service';
import { closeHttpServer, listenOnLoopback } from '@test/support/loopback-http';
import { describeWithBubblewrap, startedSandboxRunner, tempFolder, uniqueToken } from './sandbox-runner.fixture';

describeWithBubblewrap('SandboxRunner isolation (real bubblewrap)', () => {
  let runner: SandboxRunner;
  let data: ReturnType<typeof tempFolder>;
  let workspace: string;

  beforeAll(async () => {
    runner = await startedSandboxRunner();
  });
  afterAll(() => runner.onApplicationShutdown());
  beforeEach(() => {
    // Laid out like the gateway's data dir: a database file beside the workspaces.
    data = tempFolder('data');
    writeFileSync(join(data.path, 'gateway.sqlite'), 'database bytes');
    workspace = join(data.path, 'workspaces', 'ws-1');
    mkdirSync(workspace, { recursive: true });
  });
  afterEach(() => data.remove());

  it('is available on this machine', () => {
    expect(runner.unavailableReason()).toBe('');
    expect(runner.available()).toBe(true);
  });

  it('runs in /workspace: new files and folders land in the host workspace, files the gateway wrote can be changed', async () => {
    writeFileSync(join(workspace, 'notes.txt'), 'from the gateway\n');
    const result = await runner.run({
      workspaceDir: workspace,
      command: 'pwd; mkdir -p out/deep && echo made > out/deep/file.txt && echo appended >> notes.txt',
    });
    expect(result).toMatchObject({ outcome: 'EXITED', exitCode: 0, stdout: '/workspace\n', stderr: '' });
    expect(readFileSync(join(workspace, 'out/deep/file.txt'), 'utf8')).toBe('made\n');
    expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('from the gateway\nappended\n');
  });

  it('does not follow a symlink in the workspace when handing the workspace to the sandbox user', async () => {
    const outside = tempFolder('outside');
    try {
      const hostFile = join(outside.path, 'host-owned.txt');
      writeFileSync(hostFile, 'host');
      const before = statSync(hostFile);
      symlinkSync(hostFile, join(workspace, 'escape'));
      symlinkSync(outside.path, join(workspace, 'escape-dir'));
      const result = await runner.run({
        workspaceDir: workspace,
        command: 'cat escape; echo "cat=$?"; ls escape-dir/; echo "ls=$?"',
      });
      expect(result.stdout).toBe('cat=1\nls=2\n');
      expect(result.stderr).toMatch(/No such file or directory/);
      expect(statSync(hostFile).uid).toBe(before.uid);
      expect(statSync(outside.path).uid).toBe(before.uid);
    } finally {
      outside.remove();
    }
  });

  it('shows /skills mounts read-only: readable, not writable, the host folder unchanged', async () => {
    const skill = tempFolder('skill');
    try {
      writeFileSync(join(skill.path, 'SKILL.md'), '# demo skill\n');
      chmodSync(skill.path, 0o755);
      const result = await runner.run({
        workspaceDir: workspace,
        readOnlyMounts: [{ hostPath: skill.path, sandboxPath: '/skills/demo' }],
        command:
          'cat /skills/demo/SKILL.md; echo x > /skills/demo/new.txt; echo "write=$?"; rm /skills/demo/SKILL.md; echo "rm=$?"',
      });
      expect(result.outcome).toBe('EXITED');
      expect(result.stdout).toBe('# demo skill\nwrite=2\nrm=1\n');
      expect(result.stderr).toMatch(/Read-only file system/);
      expect(existsSync(join(skill.path, 'new.txt'))).toBe(false);
      expect(readFileSync(join(skill.path, 'SKILL.md'), 'utf8')).toBe('# demo skill\n');
    } finally {
      skill.remove();
    }
  });

  it("sees no host files: only the system folders, /workspace, a private /tmp; no /etc, /root, data dir or the gateway's code", async () => {
    const hostTmpToken = uniqueToken('host-tmp');
    const hostTmp = tempFolder(hostTmpToken);
    try {
      const probes = [
        '/etc/hostname',
        '/etc/passwd',
        '/root',
        join(data.path, 'gateway.sqlite'),
        join(process.cwd(), 'package.json'),
        hostTmp.path,
      ];
      const result = await runner.run({
        workspaceDir: workspace,
        command: `ls /; ls -A /tmp; for p in ${probes.join(' ')}; do test -e "$p" && echo "VISIBLE $p"; done; cat ../gateway.sqlite`,
      });
      expect(result.stdout).toBe(
        ['bin', 'dev', 'lib', 'lib64', 'proc', 'sbin', 'tmp', 'usr', 'workspace', ''].join('\n'),
      );
      expect(result.stderr).toMatch(/No such file or directory/);
    } finally {
      hostTmp.remove();
    }
  });

  it('cannot write outside /workspace and /tmp, runs as an unprivileged user without capabilities, user namespaces or inherited fds', async () => {
    const result = await runner.run({
      workspaceDir: workspace,
      command: [
        'touch /rootfile 2>/dev/null || echo "root: read-only"',
        'touch /usr/x 2>/dev/null || echo "usr: read-only"',
        'touch /dev/x 2>/dev/null || echo "dev: read-only"',
        'touch /tmp/x && echo "tmp: writable"',
        'grep CapEff /proc/self/status',
        'id -u',
        'unshare -U true 2>/dev/null || echo "userns: refused"',
        'echo fds $(ls /proc/self/fd | sort -n)',
      ].join('; '),
    });
    const lines = result.stdout.split('\n');
    expect(lines.slice(0, 4)).toEqual(['root: read-only', 'usr: read-only', 'dev: read-only', 'tmp: writable']);
    expect(lines[4]).toMatch(/^CapEff:\s+0+$/);
    expect(lines[5]).not.toBe('0');
    expect(lines[6]).toBe('userns: refused');
    // stdin, stdout, stderr and the folder `ls` reads: no fd the gateway inherited or opened.
    expect(lines[7]).toBe('fds 0 1 2 3');
  });

  it('refuses the kernel interfaces of the seccomp filter with EPERM (ptrace, keyrings, io_uring), allows the rest', async () => {
    const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
    const nr = {
      x64: { ptrace: 101, keyctl: 250, io_uring_setup: 425, getpid: 39 },
      arm64: { ptrace: 117, keyctl: 219, io_uring_setup: 425, getpid: 172 },
    }[arch];
    // perl's syscall(): PTRACE_TRACEME, KEYCTL_GET_KEYRING_ID of the session keyring, an io_uring of 1 entry.
    const perl = [
      `$! = 0; $r = syscall(${nr.ptrace}, 0, 0, 0, 0); print "ptrace $r ", $! + 0, "\\n";`,
      `$! = 0; $r = syscall(${nr.keyctl}, 0, -3, 0); print "keyctl $r ", $! + 0, "\\n";`,
      `$p = "\\0" x 120; $! = 0; $r = syscall(${nr.io_uring_setup}, 1, $p); print "io_uring $r ", $! + 0, "\\n";`,
      `$! = 0; $r = syscall(${nr.getpid}); print "getpid ", ($r > 0 ? "ok" : "failed"), "\\n";`,
    ].join(' ');
    const result = await runner.run({ workspaceDir: workspace, command: `perl -e '${perl}'` });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('ptrace -1 1\nkeyctl -1 1\nio_uring -1 1\ngetpid ok\n');
  });

  it("gives the command an empty environment (PATH, HOME, LANG): none of the gateway's variables, not through /proc either", async () => {
    const secret = `sk-live-${uniqueToken('secret')}`;
    process.env.GATEWAY_SANDBOX_TEST_SECRET = secret;
    try {
      const result = await runner.run({
        workspaceDir: workspace,
        command: 'env; echo ---; for f in /proc/[0-9]*/environ; do tr "\\0" "\\n" < "$f"; done; echo ---; ls /proc',
      });
      expect(result.stdout).not.toContain(secret);
      expect(result.stdout).not.toContain('GATEWAY_SANDBOX_TEST_SECRET');
      const [own, procEnvs, procList] = result.stdout.split('---\n');
      const names = own
        .trim()
        .split('\n')
        .map((line) => line.split('=')[0]);
      expect(names.sort()).toEqual(['HOME', 'LANG', 'PATH', 'PWD']);
      expect(own).toContain('HOME=/workspace\n');
      expect(procEnvs).toContain('HOME=/workspace');
      // Only the sandbox's own few processes: the gateway's pid namespace is not visible.
      const pids = procList.split('\n').filter((name) => /^\d+$/.test(name));
      expect(pids.length).toBeLessThan(10);
      expect(pids).not.toContain(String(process.pid));
    } finally {
      delete process.env.GATEWAY_SANDBOX_TEST_SECRET;
    }
  });

  describe('network', () => {
    let connections = 0;
    const servers: Server[] = [];
    const countingServer = () => {
      const server = createServer((_req, res) => res.end('reached'));
      server.on('connection', () => connections++);
      servers.push(server);
      return server;
    };
    afterAll(async () => {
      await Promise.all(servers.map((s) => closeHttpServer(s)));
    });

    it('has none: servers on the host (loopback and its own addresses) see no connection', async () => {
      const loopbackPort = await listenOnLoopback(countingServer());
      const anyServer = countingServer();
      await new Promise<void>((resolve) => anyServer.listen(0, '0.0.0.0', resolve));
      const anyPort = (anyServer.address() as AddressInfo).port;
      const hostAddresses = Object.values(networkInterfaces())
        .flat()
        .filter((a) => a && a.family === 'IPv4' && !a.internal)
        .map((a) => a!.address);
      const targets = [
        `127.0.0.1/${loopbackPort}`,
        `127.0.0.1/${anyPort}`,
        ...hostAddresses.map((a) => `${a}/${anyPort}`),
      ];
      const result = await runner.run({
        workspaceDir: workspace,
        command: `for t in ${targets.join(' ')}; do bash -c "exec 3<>/dev/tcp/$t && echo connected $t"; done; cat /proc/net/dev`,
      });
      expect(result.stdout).not.toContain('connected');
      expect(result.stderr).toMatch(/Connection refused|Network is unreachable/);
      const interfaces = result.stdout
        .split('\n')
        .slice(2)
        .map((line) => line.split(':')[0].trim())
        .filter(Boolean);
      expect(interfaces).toEqual(['lo']);
      expect(connections).toBe(0);
      // The servers do answer from the host: the zero above is the sandbox's doing.
      const reply = await fetch(`http://127.0.0.1:${loopbackPort}/`);
      expect(await reply.text()).toBe('reached');
      expect(connections).toBe(1);
    });
  });
});
