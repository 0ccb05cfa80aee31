import * as yauzl from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';
import { entryPathProblem } from './skill-package.rules';
import { RawSkillEntry, SkillPackageLimits, SkillPackageRefusal } from './skill-package.types';

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Folders and files that archivers add and that are no part of the skill. */
const ARCHIVER_NOISE = /(^|\/)(__MACOSX\/|\.DS_Store$)/;

/**
 * Reads the files of a zip held in memory, as hostile input: every entry's name is checked before its data is
 * read (paths leaving the folder, absolute, drive letters, backslashes), links and encrypted entries are refused,
 * the file count is bounded, and the unpacked bytes are counted while inflating, whatever the headers claim
 * (reading stops at the first byte past SKILL_MAX_BYTES). A refusal names the problem.
 */
export async function readSkillZip(zip: Buffer, limits: SkillPackageLimits): Promise<RawSkillEntry[]> {
  const file = await open(zip);
  try {
    return await readEntries(file, limits);
  } finally {
    file.close();
  }
}

async function open(zip: Buffer): Promise<ZipFile> {
  try {
    return await yauzl.fromBufferPromise(zip, {
      lazyEntries: true,
      decodeStrings: false,
      validateEntrySizes: false,
      strictFileNames: false,
    });
  } catch (err) {
    throw new SkillPackageRefusal(
      `the file is not a readable zip archive (${(err as Error).message}): send the skill folder packed as a .zip (e.g. zip -r skill.zip my-skill/)`,
    );
  }
}

/** Entries of any kind (folders, archiver noise) a zip may hold per allowed file. */
const ENTRIES_PER_FILE = 4;

async function readEntries(file: ZipFile, limits: SkillPackageLimits): Promise<RawSkillEntry[]> {
  // Folders and archiver noise are skipped, not counted as files: bounded here, from the central directory.
  const maxEntries = limits.maxFiles * ENTRIES_PER_FILE + 16;
  if (file.entryCount > maxEntries)
    throw new SkillPackageRefusal(
      `the zip has ${file.entryCount} entries (files, folders and archiver extras); at most ${maxEntries} for SKILL_MAX_FILES ${limits.maxFiles}`,
    );
  const files: RawSkillEntry[] = [];
  const budget = { left: limits.maxBytes };
  for (;;) {
    const entry = await nextEntry(file);
    if (!entry) return files;
    const path = nameOf(entry);
    const problem = entryPathProblem(path);
    if (problem) throw new SkillPackageRefusal(problem);
    if (ARCHIVER_NOISE.test(path)) continue;
    if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK)
      throw new SkillPackageRefusal(
        `entry ${JSON.stringify(path)} is a symbolic link: links are not accepted; put the file it points to in its place (zip without -y)`,
      );
    if (path.endsWith('/')) continue;
    if (entry.isEncrypted())
      throw new SkillPackageRefusal(`entry ${JSON.stringify(path)} is encrypted: create the zip without a password`);
    if (files.length + 1 > limits.maxFiles)
      throw new SkillPackageRefusal(
        `the zip has more than ${limits.maxFiles} files (SKILL_MAX_FILES): leave out files the skill does not need, or join small ones`,
      );
    const data = await readData(file, entry, path, budget, limits.maxBytes);
    files.push({ path, data });
  }
}

function nameOf(entry: Entry): string {
  const raw = entry.fileName as unknown as Buffer;
  try {
    return UTF8.decode(raw);
  } catch {
    throw new SkillPackageRefusal('an entry name is not UTF-8: re-create the zip with UTF-8 file names');
  }
}

function nextEntry(file: ZipFile): Promise<Entry | null> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      file.removeListener('entry', onEntry);
      file.removeListener('end', onEnd);
      file.removeListener('error', onError);
    };
    const onEntry = (e: Entry) => (cleanup(), resolve(e));
    const onEnd = () => (cleanup(), resolve(null));
    const onError = (err: Error) => (
      cleanup(),
      reject(
        new SkillPackageRefusal(`the zip archive is damaged (${err.message}): create the zip again and upload it anew`),
      )
    );
    file.once('entry', onEntry);
    file.once('end', onEnd);
    file.once('error', onError);
    file.readEntry();
  });
}

/** Inflates one entry, counting real bytes against what is left of the release's budget. */
async function readData(
  file: ZipFile,
  entry: Entry,
  path: string,
  budget: { left: number },
  maxBytes: number,
): Promise<Buffer> {
  const stream = await new Promise<NodeJS.ReadableStream & { destroy(): void }>((resolve, reject) =>
    file.openReadStream(entry, (err, s) =>
      err
        ? reject(
            new SkillPackageRefusal(
              `entry ${JSON.stringify(path)} cannot be read (${err.message}): create the zip again and upload it anew`,
            ),
          )
        : resolve(s),
    ),
  );
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      budget.left -= chunk.length;
      if (budget.left < 0)
        throw new SkillPackageRefusal(
          `the zip unpacks to more than ${maxBytes} bytes (SKILL_MAX_BYTES), counted while reading ${JSON.stringify(path)}: leave out or shorten files the skill does not need`,
        );
      chunks.push(chunk);
    }
  } catch (err) {
    stream.destroy();
    if (err instanceof SkillPackageRefusal) throw err;
    throw new SkillPackageRefusal(
      `entry ${JSON.stringify(path)} cannot be inflated (${(err as Error).message}): create the zip again with the usual deflate compression`,
    );
  }
  if (size !== entry.uncompressedSize)
    throw new SkillPackageRefusal(
      `entry ${JSON.stringify(path)} holds ${size} bytes but its header says ${entry.uncompressedSize}: the zip is inconsistent`,
    );
  return Buffer.concat(chunks);
}
