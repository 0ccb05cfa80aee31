import { parse as parseYaml } from 'yaml';
import { stripUnsafeText, UNSAFE_TEXT_PROBLEM } from '@app/common/safe-text';
import { SKILL_ENTRY_FILE, SKILL_NAME_PATTERN, SkillPackageRefusal } from './skill-package.types';

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
const MAX_DESCRIPTION_CHARS = 1024;
/**
 * Characters of the front matter parsed at most: room for name, description and the optional fields many times over.
 * The YAML parser's check for repeated keys is quadratic in the keys (200,000 of them held the process for 9 minutes).
 */
export const MAX_FRONT_MATTER_CHARS = 16 * 1024;

/** A problem of SKILL.md's own text (a JSON upload names its `skillContent`). */
const refusal = (problem: string) => new SkillPackageRefusal(problem, SKILL_ENTRY_FILE);

/** `name` and `description` of a SKILL.md's YAML front matter; refuses a SKILL.md without them. */
export function readSkillFrontMatter(skillMd: string): { name: string; description: string } {
  const block = FRONT_MATTER.exec(skillMd);
  if (!block)
    throw refusal(
      'SKILL.md has no YAML front matter: start it with a "---" line, then name: and description:, then "---"',
    );
  if (block[1].length > MAX_FRONT_MATTER_CHARS)
    throw refusal(
      `SKILL.md front matter has ${block[1].length} characters, more than ${MAX_FRONT_MATTER_CHARS}: keep name, description and a few short fields there, and the rest in the body`,
    );
  let data: unknown;
  try {
    data = parseYaml(block[1], { maxAliasCount: 10 });
  } catch (err) {
    throw refusal(`SKILL.md front matter is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  const fields = (data ?? {}) as Record<string, unknown>;
  if (typeof fields !== 'object' || Array.isArray(fields))
    throw refusal('SKILL.md front matter must be a YAML mapping with name and description');
  const name = fields.name;
  if (typeof name !== 'string' || name.trim() === '')
    throw refusal('SKILL.md front matter has no name: add "name: <skill-name>"');
  if (!SKILL_NAME_PATTERN.test(name))
    throw refusal(
      `SKILL.md name "${name.slice(0, 80)}" is not a valid skill name: use lower-case letters, digits and "-" (at most 64, not starting with "-")`,
    );
  const description = fields.description;
  if (typeof description !== 'string' || description.trim() === '')
    throw refusal(
      'SKILL.md front matter has no description: add "description: <what the skill does and when to use it>"',
    );
  if (description.length > MAX_DESCRIPTION_CHARS)
    throw refusal(`SKILL.md description is longer than ${MAX_DESCRIPTION_CHARS} characters`);
  // As a tool's or an agent's description: it is shown to admins and models, and these hide or reorder what they read.
  if (stripUnsafeText(description) !== description) throw refusal(`SKILL.md description ${UNSAFE_TEXT_PROBLEM}`);
  return { name, description: description.trim() };
}
