import { buildBwrapArgs, SANDBOX_ENV } from './sandbox-bwrap.args';

const build = () =>
  buildBwrapArgs({
    system: [{ path: '/usr' }, { path: '/bin', symlinkTo: 'usr/bin' }],
    workspaceSource: '/stage/workspace',
    mounts: [{ source: '/stage/m0', sandboxPath: '/skills/demo' }],
    command: 'echo "$HOME"',
    prlimitPath: '/usr/bin/prlimit',
    seccompFd: 4,
    limits: { memoryBytes: 512, maxProcesses: 64, maxFileBytes: 1024, tmpBytes: 2048 },
  });

describe('buildBwrapArgs', () => {
  it('unshares every namespace, forbids new user namespaces and drops capabilities', () => {
    const args = build();
    for (const flag of ['--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session']) {
      expect(args).toContain(flag);
    }
    expect(args.join(' ')).toContain('--cap-drop ALL');
    expect(args.indexOf('--seccomp')).toBeLessThan(args.indexOf('--'));
    expect(args[args.indexOf('--seccomp') + 1]).toBe('4');
  });

  it('clears the environment and sets only PATH, HOME and LANG', () => {
    const args = build();
    expect(args).toContain('--clearenv');
    const set = args.flatMap((a, i) => (a === '--setenv' ? [args[i + 1]] : []));
    expect(set.sort()).toEqual(Object.keys(SANDBOX_ENV).sort());
    expect(SANDBOX_ENV.HOME).toBe('/workspace');
  });

  it('binds system folders read-only, the workspace read-write, skills read-only, then makes / and /dev read-only', () => {
    const line = build().join(' ');
    expect(line).toContain('--ro-bind /usr /usr');
    expect(line).toContain('--symlink usr/bin /bin');
    expect(line).toContain('--bind /stage/workspace /workspace');
    expect(line).toContain('--ro-bind /stage/m0 /skills/demo');
    expect(line).toContain('--size 2048 --tmpfs /tmp');
    expect(line).toContain('--size 2048 --tmpfs /dev/shm');
    expect(line.indexOf('--remount-ro /')).toBeGreaterThan(line.indexOf('/skills/demo'));
  });

  it('runs the command through prlimit and /bin/sh -c, as one argument', () => {
    const args = build();
    const tail = args.slice(args.indexOf('/usr/bin/prlimit'));
    expect(tail).toEqual([
      '/usr/bin/prlimit',
      '--as=512',
      '--nproc=64',
      '--fsize=1024',
      '--nofile=1024',
      '--core=0',
      '--',
      '/bin/sh',
      '-c',
      'echo "$HOME"',
    ]);
  });
});
