import { lstatSync, readlinkSync } from 'node:fs';

/** System folders the sandbox sees, read-only: /usr and, where the host has them, /bin, /sbin, /lib, /lib64. */
export const SANDBOX_SYSTEM_FOLDERS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64'] as const;

/** How one system folder appears: bound read-only, or (merged-/usr hosts) the same symlink as on the host. */
export type SandboxSystemEntry = { path: string; symlinkTo?: string };

/** Reads the host's layout of the system folders once (absent ones are left out). */
export function probeSystemFolders(): SandboxSystemEntry[] {
  const entries: SandboxSystemEntry[] = [];
  for (const path of SANDBOX_SYSTEM_FOLDERS) {
    try {
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) entries.push({ path, symlinkTo: readlinkSync(path) });
      else if (stat.isDirectory()) entries.push({ path });
    } catch {
      // not on this host
    }
  }
  return entries;
}

/** The limits applied inside the sandbox (with `prlimit`, after the user namespace exists). */
export interface SandboxLimits {
  memoryBytes: number;
  maxProcesses: number;
  maxFileBytes: number;
  /** Size of the private /tmp and /dev/shm (tmpfs). */
  tmpBytes: number;
}

/** The only variables the command sees. */
export const SANDBOX_ENV: Readonly<Record<string, string>> = {
  PATH: '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin',
  HOME: '/workspace',
  LANG: 'C.UTF-8',
};

export const SANDBOX_STATUS_FD = 3;
/** The seccomp filter's program is read from this fd. */
export const SANDBOX_SECCOMP_FD = 4;
export const SANDBOX_MAX_OPEN_FILES = 1024;

/**
 * bubblewrap's command line for one command. Order matters: mounts first, then `/` is remounted read-only
 * (its writable tmpfs would otherwise be unbounded), limits are set by `prlimit` inside the new user
 * namespace (so RLIMIT_NPROC counts this sandbox's processes only), then `/bin/sh -c`.
 */
export function buildBwrapArgs(input: {
  system: SandboxSystemEntry[];
  /** Host path bubblewrap binds at /workspace (the staged one when the gateway is root). */
  workspaceSource: string;
  mounts: { source: string; sandboxPath: string }[];
  command: string;
  limits: SandboxLimits;
  prlimitPath: string;
  /** fd carrying the seccomp program; undefined: no filter. */
  seccompFd?: number;
}): string[] {
  const { limits } = input;
  const args: string[] = [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--clearenv',
  ];
  for (const [name, value] of Object.entries(SANDBOX_ENV)) args.push('--setenv', name, value);
  for (const entry of input.system) {
    if (entry.symlinkTo !== undefined) args.push('--symlink', entry.symlinkTo, entry.path);
    else args.push('--ro-bind', entry.path, entry.path);
  }
  args.push('--proc', '/proc', '--dev', '/dev');
  args.push('--size', String(limits.tmpBytes), '--tmpfs', '/dev/shm');
  args.push('--size', String(limits.tmpBytes), '--tmpfs', '/tmp');
  args.push('--bind', input.workspaceSource, '/workspace');
  for (const mount of input.mounts) args.push('--ro-bind', mount.source, mount.sandboxPath);
  args.push('--remount-ro', '/dev', '--remount-ro', '/');
  args.push('--chdir', '/workspace', '--json-status-fd', String(SANDBOX_STATUS_FD));
  if (input.seccompFd !== undefined) args.push('--seccomp', String(input.seccompFd));
  args.push(
    '--',
    input.prlimitPath,
    `--as=${limits.memoryBytes}`,
    `--nproc=${limits.maxProcesses}`,
    `--fsize=${limits.maxFileBytes}`,
    `--nofile=${SANDBOX_MAX_OPEN_FILES}`,
    '--core=0',
    '--',
    '/bin/sh',
    '-c',
    input.command,
  );
  return args;
}
