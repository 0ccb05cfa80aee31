import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { constants, createWriteStream } from 'node:fs';
import { chmod, lstat, open, rename, rm, unlink, type FileHandle } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { basename, dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { LONE_SURROGATE } from '@app/common/text/lone-surrogate';
import { WorkspaceErrorCode } from './workspace.errors';
import { WorkspaceLocator } from './workspace.locator';
import { crowdedFolder, leadsOut, WorkspacePathResolver, type ResolvedWorkspacePath } from './workspace-path.resolver';
import { assertOpenedInside, inOpenedFolder } from './workspace-descriptor.check';
import {
  findUndecodableName,
  tooDeepToMeasure,
  walkWorkspace,
  workspaceUsage,
  type WorkspaceEntry,
} from './workspace-usage';
import { removeTree } from './workspace-tree.remover';
import { readFileTextPage } from './workspace-file-page.reader';
import { FileCutShortError, readExactly } from './workspace-file-length.stream';

const MAX_LISTED = 1000;

/** What a write did (the `file.written` event carries it). */
export interface WorkspaceWrite {
  path: string;
  bytes: number;
  created: boolean;
}

/** Bytes staged for a write (see {@link WorkspaceFiles.stage}), not yet in the workspace. */
export interface StagedWrite {
  /** The workspace folder it is for. */
  dir: string;
  /** The normalized workspace path it is for. */
  path: string;
  /** The staged file, under WORKSPACE_ROOT/.staging. */
  file: string;
  bytes: number;
}

/** A page of a text file, as READ_FILE answers it. */
export interface WorkspaceFilePage {
  path: string;
  offset: number;
  limit: number;
  totalChars: number;
  hasMore: boolean;
  content: string;
}

/**
 * File operations inside one workspace folder, every path through {@link WorkspacePathResolver} at the moment of
 * use, files opened with O_NOFOLLOW, writes staged and renamed into place (a reader never sees half a file), and
 * the quotas (WORKSPACE_MAX_BYTES, WORKSPACE_MAX_FILES, WORKSPACE_MAX_FILE_BYTES) checked before anything lands.
 */
@Injectable()
export class WorkspaceFiles {
  private readonly limits: GatewayConfig['workspace'];
  /** Per workspace folder: the last write queued (settled, never failing), see {@link oneWriteAtATime}. */
  private readonly writes = new Map<string, Promise<void>>();
  /** Per workspace folder: the bytes of its writes staged in this process, not yet landed or discarded. */
  private readonly stagedBytes = new Map<string, number>();

  constructor(
    private readonly locator: WorkspaceLocator,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.limits = config.workspace;
  }

  async list(
    dir: string,
    path: unknown,
    recursive: boolean,
  ): Promise<{ path: string; entries: WorkspaceEntry[]; truncated: boolean }> {
    const target = await WorkspacePathResolver.existing(dir, path ?? '', this.limits.maxFiles, true);
    // Read through opened folders checked to lie inside (a command on another instance may swap a folder on the path
    // for a symlink meanwhile), never through the path as checked.
    const refuse = () => leadsOut(target.relative);
    if (target.real !== target.root) {
      const stat = await inOpenedFolder(dirname(target.real), target.root, refuse, (folder) =>
        lstat(join(folder, basename(target.real))),
      );
      if (!stat.isDirectory())
        return {
          path: target.relative,
          entries: [{ path: target.relative, type: stat.isFile() ? 'file' : 'other', size: stat.size }],
          truncated: false,
        };
    }
    const { entries, truncated } = await walkWorkspace(target.real, target.relative, recursive, MAX_LISTED, {
      root: target.root,
      refuse,
    });
    return { path: target.relative, entries, truncated };
  }

  /**
   * `limit` characters from `offset` of a UTF-8 text file of any size (read through in pieces, never whole: a command
   * may write files past WORKSPACE_MAX_FILE_BYTES, up to SANDBOX_MAX_FILE_MB, and the model must be able to read them).
   */
  async read(dir: string, path: unknown, offset: number, limit: number): Promise<WorkspaceFilePage> {
    const target = await WorkspacePathResolver.existing(dir, path, this.limits.maxFiles);
    const handle = await this.openRegular(target);
    try {
      // Never half an emoji: a page ends before a surrogate pair it would cut (see pageBounds).
      const page = await readFileTextPage(handle, offset, limit);
      return {
        path: target.relative,
        offset: page.offset,
        limit,
        totalChars: page.totalChars,
        hasMore: page.hasMore,
        content: page.content,
      };
    } finally {
      await handle.close();
    }
  }

  /**
   * A download: the open stream of a regular file and its size, the stream holding exactly that many bytes (see
   * {@link readExactly}). A command may append to the file while the download streams (read to its end, the body
   * passed the Content-Length sent before it) or truncate it (the body stopped short of it): the download gets the
   * bytes the file had when it was opened, or fails.
   */
  async openForDownload(dir: string, path: unknown): Promise<{ path: string; size: number; stream: Readable }> {
    const target = await WorkspacePathResolver.existing(dir, path, this.limits.maxFiles);
    const handle = await this.openRegular(target);
    const { size } = await handle.stat();
    return { path: target.relative, size, stream: await this.readWhileOpen(handle, size, target.relative) };
  }

  /** The bytes of a regular file (at most WORKSPACE_MAX_FILE_BYTES). */
  async readWhole(target: ResolvedWorkspacePath): Promise<Buffer> {
    const handle = await this.openRegular(target);
    try {
      const { size } = await handle.stat();
      if (size > this.limits.maxFileBytes)
        throw quota(
          `"${target.relative}" has ${size} bytes, more than the WORKSPACE_MAX_FILE_BYTES (${this.limits.maxFileBytes}) EDIT_FILE reads whole; replace it whole with WRITE_FILE, or edit it with RUN_COMMAND (e.g. sed) in a session with SANDBOX`,
        );
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  }

  /**
   * Copies a regular file of any size to `destination` (created, never replaced) as a stream, hashing it on the way:
   * PUBLISH_FILE's copy of what a command may have written (up to SANDBOX_MAX_FILE_MB), never held in memory whole.
   */
  async copyOut(
    target: ResolvedWorkspacePath,
    destination: string,
    mode: number,
  ): Promise<{ size: number; sha256: string }> {
    const handle = await this.openRegular(target);
    const { size } = await handle.stat();
    const hash = createHash('sha256');
    const hasher = new Transform({
      transform(chunk: Buffer, _enc, done) {
        hash.update(chunk);
        done(null, chunk);
      },
    });
    try {
      const source = await this.readWhileOpen(handle, size, target.relative);
      await pipeline(source, hasher, createWriteStream(destination, { flags: 'wx', mode }));
    } catch (err) {
      await rm(destination, { force: true });
      throw err instanceof FileCutShortError ? cutShort(err) : err;
    } finally {
      await handle.close().catch(() => undefined); // closed already by the stream that read it
    }
    return { size, sha256: hash.digest('hex') };
  }

  /** The first `size` bytes of an open workspace file ({@link readExactly}); a file cut meanwhile is a 409 to retry. */
  private async readWhileOpen(handle: FileHandle, size: number, relative: string): Promise<Readable> {
    try {
      return await readExactly(handle, size, relative);
    } catch (err) {
      await handle.close();
      throw err instanceof FileCutShortError ? cutShort(err) : err;
    }
  }

  async write(dir: string, path: unknown, content: string | Buffer): Promise<WorkspaceWrite> {
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    return this.writeStaged(await this.stage(dir, path, bytesStream(bytes)));
  }

  /**
   * Streams `source` into a staged file for the workspace `dir`, counting bytes as they come: past the single-file
   * limit, all that a workspace may hold, or (with the workspace's other writes staged in this process) all that a
   * workspace may hold, it stops with WORKSPACE_QUOTA_EXCEEDED and nothing is kept. So uploads sent side by side stage
   * no more than one full workspace. Touches no workspace and holds nothing (not the workspace's turn to write, not
   * its gate), so an upload whose sender pauses keeps no other write or command waiting; {@link writeStaged} then
   * lands it.
   */
  async stage(dir: string, path: unknown, source: Readable): Promise<StagedWrite> {
    const relative = WorkspacePathResolver.normalizeFile(path);
    const { maxFileBytes, maxBytes } = this.limits;
    const bound = Math.min(maxFileBytes, maxBytes);
    const staged: StagedWrite = { dir, path: relative, file: await this.locator.stagingFile(), bytes: 0 };
    const stagedBytes = this.stagedBytes;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        const bytes = staged.bytes + chunk.length;
        const others = (stagedBytes.get(dir) ?? 0) - staged.bytes;
        let refusal: DomainError | undefined;
        if (bytes > bound)
          refusal = quota(
            bytes > maxFileBytes
              ? `"${relative}" would have more than WORKSPACE_MAX_FILE_BYTES (${maxFileBytes}) bytes; send a smaller file, or split it into parts under that size`
              : `"${relative}" would have more than WORKSPACE_MAX_BYTES (${maxBytes}) bytes, all a workspace may hold; send a smaller file`,
          );
        else if (others + bytes > maxBytes)
          refusal = quota(
            `the uploads and writes to this workspace still being received hold ${others} bytes, and "${relative}" would pass WORKSPACE_MAX_BYTES (${maxBytes}) with them; send it after they land`,
          );
        if (refusal) {
          // Its room goes back at once, so an upload racing it is measured without it.
          uncount(stagedBytes, dir, staged.bytes);
          staged.bytes = 0;
          return done(refusal);
        }
        staged.bytes = bytes;
        stagedBytes.set(dir, others + bytes);
        done(null, chunk);
      },
    });
    try {
      await pipeline(source, counter, createWriteStream(staged.file, { flags: 'wx', mode: 0o640 }));
    } catch (err) {
      await this.discard(staged);
      throw err;
    }
    return staged;
  }

  /** Removes a staged file, landed (then it is gone already) or not, and gives its room back to its workspace. */
  private async discard(staged: StagedWrite): Promise<void> {
    uncount(this.stagedBytes, staged.dir, staged.bytes);
    staged.bytes = 0;
    await rm(staged.file, { force: true });
  }

  /**
   * Renames a staged file into place when it fits the workspace's quotas, measured in the workspace's turn to write
   * (see {@link oneWriteAtATime}); the staged file is gone afterwards, landed or not.
   */
  writeStaged(staged: StagedWrite): Promise<WorkspaceWrite> {
    return this.oneWriteAtATime(staged.dir, () => this.writeWithinQuota(staged.dir, staged)).finally(() =>
      this.discard(staged),
    );
  }

  /**
   * Runs the writes (and deletes) of one workspace one after another in this process: each measures the workspace
   * after the one before it landed, so two uploads at once cannot both fit in the same room (they each did). Reads,
   * and writes to other workspaces, do not wait.
   */
  private oneWriteAtATime<T>(dir: string, work: () => Promise<T>): Promise<T> {
    const previous = this.writes.get(dir) ?? Promise.resolve();
    const mine = previous.then(work);
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    this.writes.set(dir, settled);
    void settled.then(() => {
      if (this.writes.get(dir) === settled) this.writes.delete(dir);
    });
    return mine;
  }

  private async writeWithinQuota(dir: string, staged: StagedWrite): Promise<WorkspaceWrite> {
    // The walk stops past the entry limit: a workspace holding more (a command made them) takes no write at all.
    const usage = await workspaceUsage(dir, this.limits.maxFiles);
    if (usage.tooDeep !== undefined) throw quota(tooDeepToMeasure(usage.tooDeep));
    const added = await WorkspacePathResolver.addedByWrite(dir, staged.path);
    const entriesAfter = usage.entries + added.newFolders + (added.newFile ? 1 : 0);
    if (usage.truncated || entriesAfter > this.limits.maxFiles)
      throw quota(
        `the workspace holds ${usage.truncated ? 'more than ' : ''}${usage.entries} entries${added.newFolders > 0 ? ` and this write would add ${added.newFolders} folders` : ''}, WORKSPACE_MAX_FILES is ${this.limits.maxFiles}`,
      );
    // A new file frees nothing: refused before its folders are created, so a refused write leaves none behind.
    if (added.newFile) this.assertBytesFit(staged, usage.bytes, 0);
    // Only now are its folders created.
    const target = await WorkspacePathResolver.forWrite(dir, staged.path, this.limits.maxFiles);
    const replaced = target.existed ? await lstat(target.real) : null;
    this.assertBytesFit(staged, usage.bytes, replaced?.size ?? 0);
    // A replaced file keeps its permissions (a script a command made executable stays so), never set-id bits.
    if (replaced) await chmod(staged.file, replaced.mode & 0o777);
    await inOpenedFolder(
      dirname(target.real),
      target.root,
      () => leadsOut(target.relative),
      (folder) => rename(staged.file, join(folder, basename(target.real))),
    );
    return { path: target.relative, bytes: staged.bytes, created: !target.existed };
  }

  /** Refuses a write whose bytes, with what the workspace holds besides the file it replaces, pass WORKSPACE_MAX_BYTES. */
  private assertBytesFit(staged: StagedWrite, used: number, replacedBytes: number): void {
    if (staged.bytes > this.limits.maxBytes - (used - replacedBytes))
      throw quota(
        `writing ${staged.bytes} bytes to "${staged.path}" would pass WORKSPACE_MAX_BYTES (${this.limits.maxBytes}; ${used} used); delete files no longer needed (DELETE_FILE) and write it again`,
      );
  }

  /**
   * Replaces the one occurrence of `oldText`; refuses (saying how many there are) when it is not exactly one. Read and
   * written in one turn of the workspace's writes, so no other write lands between and is overwritten.
   */
  edit(dir: string, path: unknown, oldText: string, newText: string): Promise<WorkspaceWrite> {
    WorkspacePathResolver.normalize(path, false);
    // It would match half of a pair (an emoji) in the text, and the other half would be written as U+FFFD.
    if (LONE_SURROGATE.test(oldText))
      throw new DomainError(
        CommonErrorCode.VALIDATION_FAILED,
        'oldText holds half of a character (a lone UTF-16 surrogate such as \\ud83d without its pair), which can only match half of one in the file and break it; give whole characters.',
      );
    return this.oneWriteAtATime(dir, async () => {
      const target = await WorkspacePathResolver.existing(dir, path, this.limits.maxFiles);
      const bytes = await this.readWhole(target);
      // Decoded, bytes that are not UTF-8 become U+FFFD: writing the text back would change them all.
      if (!isUtf8(bytes))
        throw new DomainError(
          CommonErrorCode.VALIDATION_FAILED,
          `"${target.relative}" is not UTF-8 text, so EDIT_FILE would change its other bytes too; convert it (e.g. iconv with RUN_COMMAND) or replace it whole with WRITE_FILE.`,
          { path: target.relative },
        );
      const text = bytes.toString('utf8');
      const count = occurrences(text, oldText);
      if (count !== 1)
        throw new DomainError(
          CommonErrorCode.VALIDATION_FAILED,
          count === 0
            ? `oldText does not occur in "${target.relative}"; read the file and copy the exact text to replace.`
            : `oldText occurs ${count} times in "${target.relative}"; it must occur exactly once: include more of the surrounding text.`,
          { path: target.relative, occurrences: count },
        );
      const at = text.indexOf(oldText);
      const edited = Buffer.from(text.slice(0, at) + newText + text.slice(at + oldText.length), 'utf8');
      const staged = await this.stage(dir, target.relative, bytesStream(edited));
      try {
        return await this.writeWithinQuota(dir, staged);
      } finally {
        await this.discard(staged);
      }
    });
  }

  /**
   * Deletes a file or a symlink (the link, not its target), or a folder with everything in it. In a turn of the
   * workspace's writes (see {@link oneWriteAtATime}): an EDIT_FILE that has read the file lands before it, never after
   * (it brought the file back), and a write never finds the folder it made gone before its file lands in it.
   */
  delete(dir: string, path: unknown): Promise<{ path: string; type: WorkspaceEntry['type'] }> {
    return this.oneWriteAtATime(dir, () => this.deleteNow(dir, path));
  }

  private async deleteNow(dir: string, path: unknown): Promise<{ path: string; type: WorkspaceEntry['type'] }> {
    const target = await WorkspacePathResolver.forDelete(dir, path, this.limits.maxFiles);
    const refuse = () => leadsOut(target.relative);
    const ambiguous = () =>
      new DomainError(
        WorkspaceErrorCode.WORKSPACE_PATH_INVALID,
        `"${target.relative}" names several files whose names are not UTF-8 and read alike; delete their folder, or use RUN_COMMAND.`,
        { path: target.relative },
      );
    return inOpenedFolder(dirname(target.real), target.root, refuse, async (folder) => {
      let entry = join(folder, basename(target.real));
      let stat = await lstat(entry).catch(() => null);
      const undecodable = await findUndecodableName(folder, basename(target.real), this.limits.maxFiles, {
        ambiguous,
        crowded: () => crowdedFolder(target.relative, target.relative.split('/').length - 1, this.limits.maxFiles),
      });
      // A name truly holding U+FFFD beside one that only reads so: which one the path means cannot be told.
      if (undecodable && stat) throw ambiguous();
      if (undecodable) {
        // A name that is not UTF-8 (listed with U+FFFD) cannot be given to rm as text: renamed aside first.
        entry = join(folder, `.gw-delete-${randomUUID()}`);
        await rename(undecodable, entry);
        stat = await lstat(entry);
      }
      if (!stat) await WorkspacePathResolver.existing(dir, target.relative, this.limits.maxFiles); // throws NOT_FOUND
      if (stat!.isDirectory()) {
        await removeTree(entry);
        return { path: target.relative, type: 'directory' as const };
      }
      await unlink(entry);
      return { path: target.relative, type: stat!.isSymbolicLink() ? ('symlink' as const) : ('file' as const) };
    });
  }

  /** Opens a regular file read-only without following a final symlink (a swap after resolving fails with ELOOP). */
  /**
   * Opens a regular file for reading. O_NONBLOCK: a FIFO (or device) that a command made in the workspace opens at
   * once instead of waiting for a writer (which would hold a thread of libuv's pool forever); the type check then
   * refuses it. Regular files ignore the flag.
   */
  private async openRegular(target: ResolvedWorkspacePath) {
    const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
    const handle = await open(target.real, flags).catch((err: unknown) => {
      throw new DomainError(
        WorkspaceErrorCode.WORKSPACE_PATH_INVALID,
        `"${target.relative}" cannot be read: ${(err as Error).message.split(',')[0]}.`,
        { path: target.relative },
      );
    });
    await assertOpenedInside(handle.fd, target.root, () => leadsOut(target.relative)).catch(async (err: unknown) => {
      await handle.close();
      throw err;
    });
    const stat = await handle.stat();
    if (!stat.isFile()) {
      await handle.close();
      throw new DomainError(
        WorkspaceErrorCode.WORKSPACE_PATH_INVALID,
        stat.isDirectory()
          ? `"${target.relative}" is a folder, not a file; name a file in it (LIST_FILES with path "${target.relative}" shows them).`
          : `"${target.relative}" is not a regular file (a pipe, socket or device): only regular files can be read.`,
        { path: target.relative },
      );
    }
    return handle;
  }
}

function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

function bytesStream(bytes: Buffer): Readable {
  return Readable.from([bytes]);
}

/**
 * A file a command truncated while the gateway read it. Thrown before an answer starts; a download already
 * streaming is aborted instead (the client sees its connection cut before Content-Length bytes).
 */
export function cutShort(err: FileCutShortError): DomainError {
  return new DomainError(
    CommonErrorCode.CONCURRENT_MODIFICATION,
    `${err.message} (a command truncated it); read it again once the command that writes it is done.`,
    { path: err.file, size: err.size, readBytes: err.readBytes },
  );
}

function quota(why: string): DomainError {
  return new DomainError(WorkspaceErrorCode.WORKSPACE_QUOTA_EXCEEDED, `Workspace quota exceeded: ${why}.`);
}

/** Takes `bytes` off the bytes staged for the workspace `dir`. */
function uncount(stagedBytes: Map<string, number>, dir: string, bytes: number): void {
  const left = (stagedBytes.get(dir) ?? 0) - bytes;
  if (left > 0) stagedBytes.set(dir, left);
  else stagedBytes.delete(dir);
}
