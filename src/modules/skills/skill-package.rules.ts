import { safeLineRegExp, UNSAFE_LINE_PROBLEM } from '@app/common/safe-text';
import { LONE_SURROGATE } from '@app/common/text/lone-surrogate';
import { readSkillFrontMatter } from './skill-front-matter';
import {
  RawSkillEntry,
  SKILL_ENTRY_FILE,
  SkillPackage,
  SkillPackageFile,
  SkillPackageLimits,
  SkillPackageRefusal,
} from './skill-package.types';

const MAX_PATH_CHARS = 512;
/** The longest file or folder name Linux file systems hold (NAME_MAX): the sandbox's copy of a release needs it. */
const MAX_NAME_BYTES = 255;
// ignoreBOM: a BOM stays in the text (the release copy holds the bytes uploaded, as many as `bytes` says).
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const SAFE_LINE = safeLineRegExp();

/** A path as a refusal quotes it: JSON-quoted, cut at 200 characters, the invisible and reordering characters escaped. */
function shownPath(path: string): string {
  return JSON.stringify(path.slice(0, 200)).replace(
    /[\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Why an upload's path may not be stored (it would leave the skill folder or is not portable); null when fine. */
export function entryPathProblem(path: string): string | null {
  const shown = shownPath(path);
  if (path.length === 0) return 'an entry has an empty name';
  if (path.length > MAX_PATH_CHARS) return `path ${shown} is longer than ${MAX_PATH_CHARS} characters`;
  if (path.includes('\\')) return `path ${shown} contains a backslash: use "/" between folders`;
  if (/^[a-zA-Z]:/.test(path))
    return `path ${shown} starts with a drive letter: paths must be relative to the skill folder`;
  if (path.startsWith('/')) return `path ${shown} is absolute: paths must be relative to the skill folder`;
  // Half a character (a JSON upload's "\ud800"): stored as U+FFFD, so two such names were one file (a 409 naming the
  // skill as taken, or a 500 for a release).
  if (LONE_SURROGATE.test(path))
    return `path ${shown} holds half of a character (a lone UTF-16 surrogate, \\ud800-\\udfff): send file names as whole characters`;
  // As names and ids elsewhere: the index shows paths to admins and models, and these hide or reorder what they read.
  if (!SAFE_LINE.test(path)) return `path ${shown} ${UNSAFE_LINE_PROBLEM}`;
  const segments = path.replace(/\/$/, '').split('/');
  if (segments.some((s) => s === '..')) return `path ${shown} leaves the skill folder ("..")`;
  if (segments.some((s) => s === '' || s === '.')) return `path ${shown} has an empty or "." segment`;
  if (segments.some((s) => s !== s.trim())) return `path ${shown} has a name that starts or ends with a space`;
  if (segments.some((s) => Buffer.byteLength(s, 'utf8') > MAX_NAME_BYTES))
    return `path ${shown} has a name longer than ${MAX_NAME_BYTES} bytes (UTF-8): file systems cannot hold it`;
  return null;
}

/**
 * Applies the package rules to the files of an upload (zip entries or JSON files, directories already left
 * out): safe relative paths, SKILL.md at the root or inside exactly one top-level folder, no duplicate names,
 * the file-count and byte limits, text files only (UTF-8, no NUL), and a front matter with name and description.
 */
export function checkSkillPackage(entries: RawSkillEntry[], limits: SkillPackageLimits): SkillPackage {
  if (entries.length > limits.maxFiles)
    throw new SkillPackageRefusal(
      `the skill has ${entries.length} files; at most ${limits.maxFiles} (SKILL_MAX_FILES): leave out files the skill does not need, or join small ones`,
    );
  let totalBytes = 0;
  for (const e of entries) {
    const problem = entryPathProblem(e.path);
    if (problem) throw new SkillPackageRefusal(problem);
    // A zip's folder entries are left out before; a JSON file named so would become a file where its folder goes.
    if (e.path.endsWith('/'))
      throw new SkillPackageRefusal(
        `path ${JSON.stringify(e.path)} ends with "/": a file needs a name after its folder`,
      );
    totalBytes += e.data.length;
  }
  if (totalBytes > limits.maxBytes)
    throw new SkillPackageRefusal(
      `the skill holds ${totalBytes} bytes unpacked, more than ${limits.maxBytes} (SKILL_MAX_BYTES): leave out or shorten files the skill does not need`,
    );
  const rooted = stripTopFolder(entries);
  const seen = new Set<string>();
  const files: SkillPackageFile[] = [];
  for (const e of rooted) {
    // Letter case and Unicode normalization aside: such names collide on many file systems (and databases).
    if (seen.has(sameName(e.path)))
      throw new SkillPackageRefusal(
        `duplicate file name ${JSON.stringify(e.path)} (names that differ only in letter case or accents count as one): rename or remove one of them`,
      );
    seen.add(sameName(e.path));
    files.push({ path: e.path, content: textOf(e), bytes: e.data.length });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const f of files)
    for (let at = f.path.indexOf('/'); at > 0; at = f.path.indexOf('/', at + 1))
      if (seen.has(sameName(f.path.slice(0, at))))
        throw new SkillPackageRefusal(
          `${JSON.stringify(f.path.slice(0, at))} is both a file and a folder: rename the file or the folder`,
        );
  const skillMd = files.find((f) => f.path === SKILL_ENTRY_FILE)!;
  const { name, description } = readSkillFrontMatter(skillMd.content);
  return { name, description, files, totalBytes };
}

/** SKILL.md at the root: as is. Inside exactly one top-level folder holding everything: that folder removed. */
function stripTopFolder(entries: RawSkillEntry[]): RawSkillEntry[] {
  if (entries.some((e) => e.path === SKILL_ENTRY_FILE)) return entries;
  const tops = new Set(entries.map((e) => (e.path.includes('/') ? e.path.split('/')[0] + '/' : e.path)));
  const [top] = tops;
  if (tops.size === 1 && top.endsWith('/') && entries.some((e) => e.path === `${top}${SKILL_ENTRY_FILE}`))
    return entries.map((e) => ({ ...e, path: e.path.slice(top.length) }));
  throw new SkillPackageRefusal(
    'no SKILL.md: put SKILL.md at the root of the package, or inside exactly one top-level folder that holds everything',
  );
}

/**
 * The name two paths are duplicates by: letter case and accents aside, ß taken for ss (such names collide on
 * case-insensitive file systems); refused alike on both dialects. The skill_file key itself compares paths byte for
 * byte on MySQL too (utf8mb4_bin), so names this keeps apart are stored apart.
 */
function sameName(path: string): string {
  return path.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/ß/g, 'ss');
}

function textOf(e: RawSkillEntry): string {
  const shown = JSON.stringify(e.path);
  // Text in another encoding is told apart from binary data: the fix is to save it as UTF-8, not to leave it out.
  const wide = wideUnicodeText(e.data);
  if (wide)
    throw new SkillPackageRefusal(
      `file ${shown} is ${wide} text (it starts with a ${wide} byte order mark): only UTF-8 text files are accepted; save it as UTF-8 (Windows PowerShell 5 writes UTF-16 unless told -Encoding utf8)`,
      e.path,
    );
  if (e.data.includes(0))
    throw new SkillPackageRefusal(`file ${shown} is binary (it holds NUL bytes): only text files are accepted`, e.path);
  try {
    return UTF8.decode(e.data);
  } catch {
    throw new SkillPackageRefusal(
      `file ${shown} is not UTF-8 text (a binary file, or text saved in another encoding such as Windows-1252 or GBK): only UTF-8 text files are accepted; save it as UTF-8, or leave a binary file out of the skill`,
      e.path,
    );
  }
}

/** The Unicode encoding other than UTF-8 whose byte order mark starts `data` (UTF-32 before UTF-16: FF FE 00 00). */
function wideUnicodeText(data: Buffer): string | null {
  const starts = (...bytes: number[]) => data.length >= bytes.length && bytes.every((b, i) => data[i] === b);
  if (starts(0xff, 0xfe, 0, 0) || starts(0, 0, 0xfe, 0xff)) return 'UTF-32';
  if (starts(0xff, 0xfe) || starts(0xfe, 0xff)) return 'UTF-16';
  return null;
}
