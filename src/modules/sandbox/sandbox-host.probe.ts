import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Folders searched for bubblewrap and the helpers, after the gateway's PATH. */
const SYSTEM_BIN_DIRS = ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin'];

/** Absolute path of an executable on the host, or undefined. */
export function findExecutable(name: string, pathEnv = process.env.PATH ?? ''): string | undefined {
  const dirs = [...pathEnv.split(delimiter).filter((d) => d.startsWith('/')), ...SYSTEM_BIN_DIRS];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // try the next folder
    }
  }
  return undefined;
}

/** The unprivileged host user a root gateway runs sandboxes as ("nobody"): RLIMIT_NPROC does not bind root. */
export const SANDBOX_USER = { uid: 65534, gid: 65534 } as const;

/** uid/gid bubblewrap runs as: SANDBOX_USER when the gateway is root, else the gateway's own (undefined). */
export function sandboxHostUser(): { uid: number; gid: number } | undefined {
  return process.getuid?.() === 0 ? { ...SANDBOX_USER } : undefined;
}
