import { constants } from 'node:fs';
import { lstat, open, opendir } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { isCode, isInsideRoot } from './workspace-path.resolver';
import { pathOfDescriptor } from './workspace-descriptor.check';

const SLASH = Buffer.from('/');

/** One entry of a workspace folder as listed (symlinks are shown as links, never followed). */
export interface WorkspaceEntry {
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
  /** Set when a name in `path` is not UTF-8 (shown with U+FFFD): only DELETE_FILE takes such a path. */
  pathNotUtf8?: true;
}

/**
 * Walks `dir` without following symlinks: every entry under it (relative to `prefix`), depth first, up to `max`.
 * `recursive: false` lists one level. A folder whose entries the host cannot name (their path passes PATH_MAX: a
 * command nested folders that deep) stops the walk as `truncated`, naming it in `tooDeep`: what lies below cannot be
 * measured, so it must not count as nothing. Names are read as bytes: one that is not UTF-8 (a command made it) is
 * listed and counted, shown with U+FFFD for what cannot be decoded and marked `pathNotUtf8`, as is every entry below it
 * (see {@link findUndecodableName}). With `inside`, each folder is read through its descriptor once checked to lie in
 * `inside.root` (see {@link openFolder}); one that does not is refused with `inside.refuse()`.
 */
export async function walkWorkspace(
  dir: string,
  prefix: string,
  recursive: boolean,
  max: number,
  inside?: { root: string; refuse: () => Error },
): Promise<{ entries: WorkspaceEntry[]; truncated: boolean; tooDeep?: string }> {
  const entries: WorkspaceEntry[] = [];
  const pending: Array<{ abs: Buffer; rel: string; notUtf8: boolean }> = [
    { abs: Buffer.from(dir), rel: prefix, notUtf8: false },
  ];
  while (pending.length > 0) {
    const { abs, rel, notUtf8 } = pending.shift()!;
    // Names read at most: one past what the walk may still take shows it is past its limit.
    const room = max - entries.length + 1;
    let folder: OpenedFolder;
    try {
      folder = await openFolder(abs, inside);
    } catch (err) {
      if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR')) continue;
      if (isCode(err, 'ENAMETOOLONG')) return { entries, truncated: true, tooDeep: rel };
      throw err;
    }
    try {
      let names: Array<{ bytes: Buffer; text: string }>;
      try {
        names = (await readNames(folder.path, room))
          .map((bytes) => ({ bytes, text: bytes.toString('utf8') }))
          .sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : Buffer.compare(a.bytes, b.bytes)));
      } catch (err) {
        if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR')) continue;
        if (isCode(err, 'ENAMETOOLONG')) return { entries, truncated: true, tooDeep: rel };
        throw err;
      }
      for (const name of names) {
        const childAbs = Buffer.concat([abs, SLASH, name.bytes]);
        const childRel = rel === '' ? name.text : `${rel}/${name.text}`;
        let tooLong = false;
        const stat = await lstat(Buffer.concat([folder.path, SLASH, name.bytes])).catch((err: unknown) => {
          tooLong = isCode(err, 'ENAMETOOLONG');
          return null;
        });
        if (tooLong) return { entries, truncated: true, tooDeep: rel };
        if (!stat) continue;
        const type = stat.isSymbolicLink()
          ? 'symlink'
          : stat.isDirectory()
            ? 'directory'
            : stat.isFile()
              ? 'file'
              : 'other';
        if (entries.length >= max) return { entries, truncated: true };
        const childNotUtf8 = notUtf8 || !isUtf8(name.bytes);
        entries.push({
          path: childRel,
          type,
          size: type === 'file' ? stat.size : 0,
          ...(childNotUtf8 && { pathNotUtf8: true as const }),
        });
        if (recursive && type === 'directory') pending.push({ abs: childAbs, rel: childRel, notUtf8: childNotUtf8 });
      }
      // The folder held more names than were read, though some were gone by their lstat: never counted as fewer.
      if (names.length >= room) return { entries, truncated: true };
    } finally {
      await folder.close();
    }
  }
  return { entries, truncated: false };
}

/** A folder being walked: `path` reads it (its descriptor's name, or its own path when nothing is checked). */
interface OpenedFolder {
  path: Buffer;
  close(): Promise<void>;
}

/**
 * The folder `abs` to read. Without `inside`, as named. With it, opened without following its last component,
 * checked through its descriptor to lie in `inside.root`, and read through the descriptor: a command on another
 * instance (not waited for) may swap a folder on the path for a symlink after the path was checked, and the walk then
 * listed what lay behind the link (another tenant's workspace).
 */
async function openFolder(abs: Buffer, inside?: { root: string; refuse: () => Error }): Promise<OpenedFolder> {
  if (!inside) return { path: abs, close: () => Promise.resolve() };
  const handle = await open(abs, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    const opened = await pathOfDescriptor(handle.fd);
    if (opened !== null && !isInsideRoot(inside.root, opened)) throw inside.refuse();
    return { path: opened === null ? abs : Buffer.from(`/proc/self/fd/${handle.fd}`), close: () => handle.close() };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/**
 * At most `limit` names of the folder `abs`, as bytes, in the order the file system gives them. A command may leave
 * millions in one folder: reading them all (and sorting them) held the event loop for seconds and hundreds of MB on
 * every write, command and listing, though the walk stops past its limit anyway.
 */
async function readNames(abs: Buffer, limit: number): Promise<Buffer[]> {
  const names: Buffer[] = [];
  // Names as bytes (Node reads 'buffer' here as readdir does; its types list text encodings only).
  const options = { encoding: 'buffer' as BufferEncoding, bufferSize: 256 };
  for await (const entry of await opendir(abs, options)) {
    names.push(entry.name as unknown as Buffer);
    if (names.length >= limit) break; // closes the folder
  }
  return names;
}

/**
 * Bytes of regular files and the number of entries in the workspace (the quota's measure), and the entries walked.
 * With `maxEntries` the walk stops past that many (`truncated`; the bytes then count only what was walked); it stops
 * too at folders nested too deep to measure (`truncated`, and `tooDeep` names the folder).
 */
export async function workspaceUsage(
  dir: string,
  maxEntries = Number.MAX_SAFE_INTEGER,
): Promise<{ bytes: number; entries: number; truncated: boolean; tooDeep?: string; walked: WorkspaceEntry[] }> {
  const { entries, truncated, tooDeep } = await walkWorkspace(dir, '', true, maxEntries);
  const bytes = entries.reduce((sum, e) => sum + e.size, 0);
  return { bytes, entries: entries.length, truncated, tooDeep, walked: entries };
}

/** Why a workspace counts as full when folders in it are nested too deep to measure. */
export function tooDeepToMeasure(folder: string): string {
  const shown = folder.length > 80 ? `${folder.slice(0, 80)}...` : folder;
  return `folders in the workspace are nested too deep to measure (inside "${shown}"); delete them (DELETE_FILE, or rm -rf with RUN_COMMAND)`;
}

/**
 * The names in `folder` that are not UTF-8 and read as `shown` once decoded (as listings show them, with U+FFFD), or
 * `'crowded'` when the folder holds more than `maxNames` names: no more are read. A command may leave millions of
 * names in one folder, and reading them all held the event loop for seconds and hundreds of MB on every call naming a
 * path with U+FFFD in it.
 */
export async function undecodableNamesReadingAs(
  folder: string,
  shown: string,
  maxNames: number,
): Promise<Buffer[] | 'crowded'> {
  const names = await readNames(Buffer.from(folder), maxNames + 1).catch(() => [] as Buffer[]);
  if (names.length > maxNames) return 'crowded';
  return names.filter((name) => !isUtf8(name) && name.toString('utf8') === shown);
}

/**
 * The name in `folder` that is not UTF-8 and reads as `shown` once decoded (as listings show it, with U+FFFD), so the
 * path a listing gave can be acted on; undefined when there is none. Several such names that read alike are refused
 * (`ambiguous`: deleting their folder removes them all), as is a folder holding more than `maxNames` names
 * (`crowded`, see {@link undecodableNamesReadingAs}).
 */
export async function findUndecodableName(
  folder: string,
  shown: string,
  maxNames: number,
  refuse: { ambiguous: () => Error; crowded: () => Error },
): Promise<Buffer | undefined> {
  if (!shown.includes('\uFFFD')) return undefined;
  const matches = await undecodableNamesReadingAs(folder, shown, maxNames);
  if (matches === 'crowded') throw refuse.crowded();
  if (matches.length > 1) throw refuse.ambiguous();
  return matches.length === 1 ? Buffer.concat([Buffer.from(folder), SLASH, matches[0]]) : undefined;
}
