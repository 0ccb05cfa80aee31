import { constants } from 'node:fs';
import { open, readlink } from 'node:fs/promises';
import { isInsideRoot } from './workspace-path.resolver';

/** Linux's view of this process's open descriptors: `/proc/self/fd/<n>` names the very file or folder `n` holds. */
const FD_DIR = '/proc/self/fd';

/** Where the kernel says an open descriptor lies; null where /proc is not mounted (the checks are then skipped). */
export async function pathOfDescriptor(fd: number): Promise<string | null> {
  return readlink(`${FD_DIR}/${fd}`).catch(() => null);
}

/**
 * Checks after the fact that an opened file lies inside `root`: a path checked with `realpath` can be changed by a
 * command (a folder swapped for a symlink) before it is opened; what was opened cannot. Throws `refuse()` if not.
 */
export async function assertOpenedInside(fd: number, root: string, refuse: () => Error): Promise<void> {
  const path = await pathOfDescriptor(fd);
  if (path !== null && !isInsideRoot(root, path)) throw refuse();
}

/**
 * Runs `work` in the folder `dir`, opened (a final symlink is not followed), checked to lie inside `root`, and named
 * by its descriptor (`/proc/self/fd/<n>`), so a rename, unlink or rm under it lands in that very folder whatever
 * happens to the path meanwhile.
 */
export async function inOpenedFolder<T>(
  dir: string,
  root: string,
  refuse: () => Error,
  work: (folder: string) => Promise<T>,
): Promise<T> {
  const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW).catch(() => {
    throw refuse();
  });
  try {
    const path = await pathOfDescriptor(handle.fd);
    if (path === null) return await work(dir);
    if (!isInsideRoot(root, path)) throw refuse();
    return await work(`${FD_DIR}/${handle.fd}`);
  } finally {
    await handle.close();
  }
}
