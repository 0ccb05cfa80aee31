/** A file of an upload as it arrived (zip entry or JSON `files[]` item), before the package rules ran. */
export interface RawSkillEntry {
  /** The path exactly as the upload named it. */
  path: string;
  data: Buffer;
}

/** One text file of a checked package, `path` relative to the skill folder. */
export interface SkillPackageFile {
  path: string;
  content: string;
  bytes: number;
}

/** A package that passed every rule: what a release stores. */
export interface SkillPackage {
  name: string;
  description: string;
  /** Sorted by path; SKILL.md among them. */
  files: SkillPackageFile[];
  totalBytes: number;
}

export interface SkillPackageLimits {
  maxFiles: number;
  maxBytes: number;
}

/**
 * A package refused by a rule; `problem` names it (the caller answers 400 with it, nothing stored). `file`: the
 * package file whose contents break the rule (SKILL.md for its front matter), so a JSON upload can name the field that
 * held them; absent when the problem is a path, a duplicate, a limit or the package's shape.
 */
export class SkillPackageRefusal extends Error {
  constructor(
    readonly problem: string,
    readonly file?: string,
  ) {
    super(problem);
    this.name = 'SkillPackageRefusal';
  }
}

/** The name rule of the contract (skill names are also the folder under /skills). */
export const SKILL_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;

export const SKILL_ENTRY_FILE = 'SKILL.md';

/** Room a zip may take for its own headers beyond the unpacked bytes it may hold (a zip of many tiny files). */
export const SKILL_ZIP_OVERHEAD_BYTES = 1024 * 1024;
