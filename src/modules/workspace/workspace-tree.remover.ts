import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * Removes a file or a folder with everything in it; symlinks are removed, never followed. Coreutils `rm` does it in a
 * process of its own, walking by descriptor (openat), so it works at any depth and costs the gateway one child process
 * whatever the tree holds. Node's `rm` named each entry by its whole path (a tree nested past PATH_MAX, which a command
 * makes with `mkdir x && cd x` in a loop, failed with ENAMETOOLONG) and queued an lstat and an unlink per entry at once
 * on the thread pool all tenants' file operations and DNS lookups share: a folder of a million files a command left held
 * that pool, several seconds of the event loop and gigabytes of memory. A path through this process's descriptors
 * (`/proc/self/fd/<n>/...`, see inOpenedFolder) is handed to `rm` as `/proc/<pid>/fd/<n>`.
 */
export async function removeTree(path: string): Promise<void> {
  const ours = path.replace(/^\/proc\/self\//, `/proc/${process.pid}/`);
  await execFileAsync('rm', ['-rf', '--one-file-system', '--', ours], {
    env: { PATH: '/usr/bin:/bin' },
    timeout: 60_000,
  });
}
