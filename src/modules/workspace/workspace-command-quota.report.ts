import type { WorkspaceEntry } from './workspace-usage';

/**
 * What a refused write prints: strerror(EFBIG) (the sandbox ignores SIGXFSZ, so a write past RLIMIT_FSIZE fails with
 * it) and a shell's word for a process that SIGXFSZ killed all the same.
 */
const FILE_LIMIT_WORDS = /File too large|File size limit exceeded/;
/** dash's echo and printf print this for any failed write, a refused one included. */
const WRITE_ERROR_WORDS = /I\/O error/;
/** Files named in the report, at most. */
const NAMED_FILES = 5;

/** A command's run as the file-size limit saw it: the limit, what the command said, the workspace before and after. */
export interface CommandFileLimitRun {
  /** The largest file the command could write (RLIMIT_FSIZE), in bytes. */
  fileLimit: number;
  /** What set it: the room left under WORKSPACE_MAX_BYTES when the command started, or SANDBOX_MAX_FILE_MB. */
  setBy: 'WORKSPACE_MAX_BYTES' | 'SANDBOX_MAX_FILE_MB';
  stderr: string;
  killedAtFileLimit: boolean;
  before: WorkspaceEntry[];
  after: WorkspaceEntry[];
  /** Bytes the workspace holds after the command, and WORKSPACE_MAX_BYTES. */
  usedAfter: number;
  maxBytes: number;
}

/**
 * Plain words for a command that hit its file-size limit, or undefined when it did not: which files stopped at the
 * limit (cut short, so they may be incomplete) or could not grow at all (they held as much before), how much room is
 * left, and how to free some. RLIMIT_FSIZE caps a file's size, not its growth: a file already larger than the room
 * left cannot take one more byte from a command, though the workspace has room for it.
 */
export function describeFileLimitHit(run: CommandFileLimitRun): string | undefined {
  const sizeBefore = new Map(run.before.filter(isFile).map((e) => [e.path, e.size]));
  const files = run.after.filter(isFile);
  const cut = files.filter((e) => e.size === run.fileLimit && sizeBefore.get(e.path) !== e.size);
  const full = files.filter((e) => e.size >= run.fileLimit && sizeBefore.get(e.path) === e.size);
  // A file written up to a limit above 0 was cut there; at 0 (a full workspace) an empty new file may just be new.
  const refused =
    run.killedAtFileLimit ||
    FILE_LIMIT_WORDS.test(run.stderr) ||
    cut.some((e) => e.size > 0) ||
    (WRITE_ERROR_WORDS.test(run.stderr) && cut.length + full.length > 0);
  if (!refused) return undefined;

  const words =
    run.setBy === 'WORKSPACE_MAX_BYTES'
      ? [
          `Workspace quota hit: this command could write no file past ${run.fileLimit} bytes, the room left under WORKSPACE_MAX_BYTES (${run.maxBytes}) when it started (the limit is on a file's size, not on how much it grows)`,
        ]
      : [`File size limit hit: this command could write no file past SANDBOX_MAX_FILE_MB (${run.fileLimit} bytes)`];
  if (cut.length > 0) words.push(`${named(cut)} stopped at ${run.fileLimit} bytes and may be incomplete`);
  if (full.length > 0) words.push(`${named(full)} already held that much, so nothing could be added`);
  if (cut.length === 0 && full.length === 0)
    words.push('the file it stopped is not in the workspace now (in /tmp, or deleted since)');
  const left = Math.max(0, run.maxBytes - run.usedAfter);
  words.push(`the workspace now holds ${run.usedAfter} of ${run.maxBytes} bytes (${left} left)`);
  words.push(
    run.setBy === 'WORKSPACE_MAX_BYTES'
      ? 'free space by deleting files no longer needed (DELETE_FILE, or rm with RUN_COMMAND) and run it again; WRITE_FILE and EDIT_FILE measure the whole workspace instead, so they can still add to a file what fits in the room left'
      : 'write the output in smaller files, or ask an operator to raise SANDBOX_MAX_FILE_MB',
  );
  return `${words.join('; ')}.`;
}

function isFile(entry: WorkspaceEntry): boolean {
  return entry.type === 'file';
}

function named(files: WorkspaceEntry[]): string {
  const shown = files.slice(0, NAMED_FILES).map((f) => `"${f.path}" (${f.size} bytes)`);
  const more = files.length > NAMED_FILES ? ` and ${files.length - NAMED_FILES} more` : '';
  return `${shown.join(', ')}${more}`;
}
