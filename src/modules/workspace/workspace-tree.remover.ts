import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { isCode } from './workspace-path.resolver';

const execFileAsync = promisify(execFile);

/**
 * Removes a file or a folder with everything in it; symlinks are removed, never followed. Node's `rm` names every
 * entry by its whole path, so a tree nested past PATH_MAX (a command makes one with `mkdir x && cd x` in a loop)
 * fails with ENAMETOOLONG: coreutils `rm` walks it by descriptor (openat) and removes it at any depth. A path through
 * this process's descriptors (`/proc/self/fd/<n>/...`, see inOpenedFolder) is handed to `rm` as `/proc/<pid>/fd/<n>`.
 */
export async function removeTree(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true });
  } catch (err) {
    if (!isCode(err, 'ENAMETOOLONG')) throw err;
    const ours = path.replace(/^\/proc\/self\//, `/proc/${process.pid}/`);
    await execFileAsync('rm', ['-rf', '--one-file-system', '--', ours], {
      env: { PATH: '/usr/bin:/bin' },
      timeout: 60_000,
    });
  }
}
