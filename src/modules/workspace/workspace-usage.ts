import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isCode } from './workspace-path.resolver';

/** One entry of a workspace folder as listed (symlinks are shown as links, never followed). */
export interface WorkspaceEntry {
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
}

/**
 * Walks `dir` without following symlinks: every entry under it (relative to `prefix`), depth first, up to `max`.
 * `recursive: false` lists one level.
 */
export async function walkWorkspace(
  dir: string,
  prefix: string,
  recursive: boolean,
  max: number,
): Promise<{ entries: WorkspaceEntry[]; truncated: boolean }> {
  const entries: WorkspaceEntry[] = [];
  const pending: Array<{ abs: string; rel: string }> = [{ abs: dir, rel: prefix }];
  while (pending.length > 0) {
    const { abs, rel } = pending.shift()!;
    let names: string[];
    try {
      names = (await readdir(abs)).sort();
    } catch (err) {
      if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR')) continue;
      throw err;
    }
    for (const name of names) {
      const childAbs = join(abs, name);
      const childRel = rel === '' ? name : `${rel}/${name}`;
      const stat = await lstat(childAbs).catch(() => null);
      if (!stat) continue;
      const type = stat.isSymbolicLink()
        ? 'symlink'
        : stat.isDirectory()
          ? 'directory'
          : stat.isFile()
            ? 'file'
            : 'other';
      if (entries.length >= max) return { entries, truncated: true };
      entries.push({ path: childRel, type, size: type === 'file' ? stat.size : 0 });
      if (recursive && type === 'directory') pending.push({ abs: childAbs, rel: childRel });
    }
  }
  return { entries, truncated: false };
}

/**
 * Bytes of regular files and the number of entries in the workspace (the quota's measure). With `maxEntries` the walk
 * stops past that many (`truncated`; the bytes then count only what was walked).
 */
export async function workspaceUsage(
  dir: string,
  maxEntries = Number.MAX_SAFE_INTEGER,
): Promise<{ bytes: number; entries: number; truncated: boolean }> {
  const { entries, truncated } = await walkWorkspace(dir, '', true, maxEntries);
  return { bytes: entries.reduce((sum, e) => sum + e.size, 0), entries: entries.length, truncated };
}
