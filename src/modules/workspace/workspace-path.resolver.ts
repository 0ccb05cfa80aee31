import { isUtf8 } from 'node:buffer';
import { lstat, mkdir, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { LONE_SURROGATE } from '@app/common/text/lone-surrogate';
import { WorkspaceErrorCode } from './workspace.errors';
import { undecodableNamesReadingAs } from './workspace-usage';
import { inOpenedFolder } from './workspace-descriptor.check';

const MAX_PATH_CHARS = 1024;
const MAX_SEGMENT_BYTES = 255;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** A workspace path checked and resolved at the moment of use: `real` lies inside the workspace. */
export interface ResolvedWorkspacePath {
  /** The normalized relative path (`a/b.txt`; `''` is the root). */
  relative: string;
  /** Absolute host path with every symlink resolved, inside the workspace's real root. */
  real: string;
  /** The workspace's real root (what an opened descriptor is checked against). */
  root: string;
}

/**
 * The one place that turns a caller's workspace path into a host path. Paths are relative to the workspace root
 * (`a/b.txt`, `./a`); absolute paths, `..` segments, NUL, backslashes and Windows drive letters are refused outright.
 * Every use resolves the path with `realpath` right before the file is opened and checks that the real path is
 * still inside the workspace's real root, so a symlink a command made (`ln -s / escape`) cannot lead out; callers
 * open the resolved path with O_NOFOLLOW so a final component swapped for a symlink afterwards fails instead of
 * being followed.
 */
export class WorkspacePathResolver {
  /** The normalized relative path, or a WORKSPACE_PATH_INVALID error naming the path and what is wrong. */
  static normalize(path: unknown, allowRoot: boolean): string {
    if (typeof path !== 'string') throw invalid(String(path), 'it must be a string');
    if (path.length > MAX_PATH_CHARS)
      throw invalid(path.slice(0, 80), `it is longer than ${MAX_PATH_CHARS} characters`);
    if (path.includes('\0')) throw invalid(path, 'it contains a NUL character (\\0); remove it from the path');
    // A file name is bytes (UTF-8): half a character became U+FFFD, so the path named a file called otherwise, and
    // "a\ud800" and "a\udc00" one file. Shown escaped: the refusal itself must be whole text.
    if (LONE_SURROGATE.test(path))
      throw invalid(
        path.replace(LONE_SURROGATES, (c) => `\\u${c.charCodeAt(0).toString(16)}`),
        'it holds half of a character (a lone UTF-16 surrogate, \\ud800-\\udfff, e.g. an emoji cut in two), which no file name can hold; give whole characters',
      );
    if (path.includes('\\')) throw invalid(path, 'it contains a backslash (use / between folders)');
    if (path.startsWith('/') || /^[a-zA-Z]:/.test(path) || path.startsWith('~'))
      throw invalid(path, 'it is absolute (give a path relative to the workspace root, e.g. notes/a.txt)');
    const segments = path.split('/').filter((s) => s !== '' && s !== '.');
    if (segments.includes('..')) throw invalid(path, '".." is not allowed (stay inside the workspace)');
    if (segments.some((s) => Buffer.byteLength(s) > MAX_SEGMENT_BYTES))
      throw invalid(path, `a name is longer than ${MAX_SEGMENT_BYTES} bytes`);
    if (segments.length === 0 && !allowRoot)
      throw invalid(path, 'it names the workspace root, not a file: name a file in it, e.g. notes.txt');
    return segments.join('/');
  }

  /** The normalized path of a file to write: as {@link normalize}, and refused when it ends with `/` (a folder's). */
  static normalizeFile(path: unknown): string {
    const relative = WorkspacePathResolver.normalize(path, false);
    if (typeof path === 'string' && /\/\.?$/.test(path))
      throw invalid(path, `it ends with / (a folder): name the file, e.g. ${relative}/notes.txt`);
    return relative;
  }

  /**
   * An existing file or folder: its real path, checked to be inside `root`; NOT_FOUND when it does not exist.
   * `maxNames` (WORKSPACE_MAX_FILES) bounds the names read of a folder to tell what a name with U+FFFD stands for.
   */
  static async existing(
    root: string,
    path: unknown,
    maxNames: number,
    allowRoot = false,
  ): Promise<ResolvedWorkspacePath> {
    const relative = WorkspacePathResolver.normalize(path, allowRoot);
    const realRoot = await realRootOf(root);
    await refuseUndecodableTwins(realRoot, relative, maxNames);
    let real: string;
    try {
      real = await utf8Realpath(join(realRoot, relative), relative);
    } catch (err) {
      if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR'))
        throw new DomainError(
          CommonErrorCode.NOT_FOUND,
          `No file or folder "${relative}" in the workspace; LIST_FILES (GET /api/v1/sessions/{id}/files) shows what is there.`,
          {
            path: relative,
          },
        );
      if (isCode(err, 'ELOOP'))
        throw invalid(
          relative,
          `it is a symlink loop: delete the link (DELETE_FILE) or re-point it with RUN_COMMAND (ln -sfn)`,
        );
      throw err;
    }
    assertInside(realRoot, real, relative);
    return { relative, real, root: realRoot };
  }

  /**
   * What writing `path` would add to the workspace, read without changing anything: the parent folders it would
   * create, and whether the file is new (the quota is checked on this before {@link forWrite} creates a folder).
   */
  static async addedByWrite(root: string, path: unknown): Promise<{ newFolders: number; newFile: boolean }> {
    const relative = WorkspacePathResolver.normalize(path, false);
    const segments = relative.split('/');
    const { dir, missing } = await walkParents(await realRootOf(root), relative, false);
    if (missing > 0) return { newFolders: missing, newFile: true };
    const exists = await lstat(join(dir, segments[segments.length - 1])).then(
      () => true,
      (err: unknown) => (isCode(err, 'ENOENT') ? false : Promise.reject(err)),
    );
    return { newFolders: 0, newFile: !exists };
  }

  /**
   * A file about to be written: its parent folders are created one at a time, each checked to be inside the
   * workspace after `realpath` (a symlinked folder that leads out is refused before anything is created through it).
   * An existing target that is a symlink is resolved and checked like any other path.
   */
  static async forWrite(
    root: string,
    path: unknown,
    maxNames: number,
  ): Promise<ResolvedWorkspacePath & { existed: boolean }> {
    const relative = WorkspacePathResolver.normalize(path, false);
    const realRoot = await realRootOf(root);
    await refuseUndecodableTwins(realRoot, relative, maxNames);
    const segments = relative.split('/');
    const { dir } = await walkParents(realRoot, relative, true);
    const target = join(dir, segments[segments.length - 1]);
    const stat = await lstat(target).catch((err: unknown) => (isCode(err, 'ENOENT') ? null : Promise.reject(err)));
    if (!stat) return { relative, real: target, root: realRoot, existed: false };
    if (stat.isDirectory()) throw invalid(relative, `it is a folder: name a file in it, e.g. ${relative}/notes.txt`);
    if (!stat.isSymbolicLink()) return { relative, real: target, root: realRoot, existed: true };
    const real = await realpathOfLink(target, relative, 'it is');
    assertInside(realRoot, real, relative);
    // Renamed onto, a folder would fail with the host's paths in the message.
    if ((await lstat(real)).isDirectory())
      throw invalid(relative, 'it is a symlink to a folder: name a file inside that folder');
    return { relative, real, root: realRoot, existed: true };
  }

  /**
   * A file or folder about to be deleted: its parent's real path is checked, the last component is not followed
   * (deleting a symlink removes the link, never what it points to).
   */
  static async forDelete(root: string, path: unknown, maxNames: number): Promise<ResolvedWorkspacePath> {
    const relative = WorkspacePathResolver.normalize(path, false);
    const segments = relative.split('/');
    const parent = await WorkspacePathResolver.existing(root, segments.slice(0, -1).join('/'), maxNames, true);
    return { relative, real: join(parent.real, segments[segments.length - 1]), root: parent.root };
  }
}

/**
 * Walks the parent folders of `relative` down from `realRoot`, one at a time, each checked after `realpath` to be
 * inside the workspace and a folder. A missing one is created when `create`; otherwise the walk stops there and says
 * how many folders are missing from it on. Returns the last folder reached.
 */
async function walkParents(
  realRoot: string,
  relative: string,
  create: boolean,
): Promise<{ dir: string; missing: number }> {
  const parents = relative.split('/').slice(0, -1);
  let dir = realRoot;
  for (const [i, segment] of parents.entries()) {
    const next = join(dir, segment);
    const stat = await lstat(next).catch((err: unknown) => (isCode(err, 'ENOENT') ? null : Promise.reject(err)));
    if (!stat) {
      if (!create) return { dir, missing: parents.length - i };
      // In the folder as opened and checked: by its path, a folder above swapped for a symlink meanwhile (a command on
      // another instance) had it created wherever the link led, another tenant's workspace or any host folder.
      await inOpenedFolder(
        dir,
        realRoot,
        () => leadsOut(relative),
        (folder) =>
          mkdir(join(folder, segment)).catch((err: unknown) =>
            isCode(err, 'EEXIST') ? undefined : Promise.reject(err),
          ),
      );
    }
    dir = await realpathOfLink(next, relative, `"${segment}" is`);
    assertInside(realRoot, dir, relative);
    if (!(await lstat(dir)).isDirectory())
      throw invalid(
        relative,
        `"${segment}" is a file, not a folder: pick a path that does not pass through the file, or delete it first (DELETE_FILE)`,
      );
  }
  return { dir, missing: 0 };
}

/**
 * The real path of `path`, which exists (lstat found it); a symlink that leads nowhere or loops is refused naming
 * `relative` (`what`: which part of it), never with the host path in a raw error.
 */
async function realpathOfLink(path: string, relative: string, what: string): Promise<string> {
  return utf8Realpath(path, relative).catch((err: unknown) => {
    if (isCode(err, 'ENOENT'))
      throw invalid(
        relative,
        `${what} a symlink to nothing: delete the link (DELETE_FILE) or re-point it with RUN_COMMAND (ln -sfn)`,
      );
    if (isCode(err, 'ELOOP'))
      throw invalid(
        relative,
        `${what} a symlink loop: delete the link (DELETE_FILE) or re-point it with RUN_COMMAND (ln -sfn)`,
      );
    throw err;
  });
}

/**
 * The real path of `path` as text. A real path holding a name that is not UTF-8 (a command can make one, and a symlink
 * lead to it) is refused: decoded, its bytes become U+FFFD and the text names another file, or none. So is one past
 * PATH_MAX (a symlink into folders a command nested deep), whose raw error named the host's paths.
 */
async function utf8Realpath(path: string, relative: string): Promise<string> {
  const real = await realpath(path, { encoding: 'buffer' }).catch((err: unknown) => {
    if (!isCode(err, 'ENAMETOOLONG')) throw err;
    throw invalid(
      relative,
      'it leads (through a symlink) to a path longer than the host can name (PATH_MAX): move the file nearer the workspace root with RUN_COMMAND (mv) and name it by its own path',
    );
  });
  if (!isUtf8(real))
    throw invalid(
      relative,
      `it leads to a file or folder whose name is not UTF-8 text${NOT_UTF8}: rename that one to UTF-8 with RUN_COMMAND (mv)`,
    );
  return real.toString('utf8');
}

/**
 * Refuses a path naming, with U+FFFD, a file or folder whose name is not UTF-8 (as listings show it): opened by that
 * text, the path would name another file (one truly named so) or none. DELETE_FILE takes such a name (see
 * findUndecodableName); the other tools ask for a rename.
 */
async function refuseUndecodableTwins(realRoot: string, relative: string, maxNames: number): Promise<void> {
  if (!relative.includes('\uFFFD')) return;
  let dir = realRoot;
  for (const [i, segment] of relative.split('/').entries()) {
    if (segment.includes('\uFFFD')) {
      const names = await undecodableNamesReadingAs(dir, segment, maxNames);
      if (names === 'crowded') throw crowdedFolder(relative, i, maxNames);
      if (names.length > 0)
        throw invalid(
          relative,
          `"${segment}" stands for a name that is not UTF-8 text${NOT_UTF8}: rename it to UTF-8 with RUN_COMMAND (\`mv -- ${segment.replace(/\uFFFD+/g, '*')} new-name\` reaches it), or delete it with DELETE_FILE`,
        );
    }
    dir = join(dir, segment);
  }
}

/**
 * The refusal of a path whose segment `index` holds U+FFFD in a folder of more than `maxNames` names: too many to look
 * through for a name that is not UTF-8 and reads alike (see undecodableNamesReadingAs).
 */
export function crowdedFolder(relative: string, index: number, maxNames: number): DomainError {
  const segments = relative.split('/');
  const folder = index === 0 ? 'the workspace root' : `"${segments.slice(0, index).join('/')}"`;
  return invalid(
    relative,
    `${folder} holds more than ${maxNames} names (WORKSPACE_MAX_FILES), too many to look through for a name that is not UTF-8 and reads as "${segments[index]}"; delete files there (DELETE_FILE, or rm with RUN_COMMAND), or rename this one without U+FFFD (mv with RUN_COMMAND)`,
  );
}

const NOT_UTF8 =
  ' (a command made it; listings show its undecodable bytes as U+FFFD), which the file tools cannot name without mistaking it for another file';

/** The workspace folder's real path; WORKSPACE_UNAVAILABLE when it is gone (its session was closed meanwhile). */
async function realRootOf(root: string): Promise<string> {
  return realpath(root).catch((err: unknown) => {
    if (!isCode(err, 'ENOENT')) throw err;
    throw workspaceGone();
  });
}

/** The refusal of a call whose session was closed (and its workspace removed) meanwhile. */
export function workspaceGone(): DomainError {
  return new DomainError(
    WorkspaceErrorCode.WORKSPACE_UNAVAILABLE,
    'The workspace is gone: its session was closed (and the workspace removed) meanwhile; nothing was done. Work on in a new session (POST /api/v1/sessions with capabilities ["FILE_ROOM"]).',
  );
}

/** Whether the real path `real` is `realRoot` or lies under it. */
export function isInsideRoot(realRoot: string, real: string): boolean {
  return real === realRoot || real.startsWith(realRoot + sep);
}

function assertInside(realRoot: string, real: string, relative: string): void {
  if (!isInsideRoot(realRoot, real)) throw leadsOut(relative);
}

/** The refusal of a path that led out of the workspace (also when found out after opening it). */
export function leadsOut(relative: string): DomainError {
  return invalid(
    relative,
    'it leads out of the workspace (through a symlink); name a path inside the workspace (LIST_FILES shows them), or delete the link (DELETE_FILE)',
  );
}

function invalid(path: string, why: string): DomainError {
  return new DomainError(WorkspaceErrorCode.WORKSPACE_PATH_INVALID, `Workspace path "${path}" is refused: ${why}.`, {
    path,
  });
}

export function isCode(err: unknown, code: string): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === code;
}
