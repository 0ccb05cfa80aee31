import type { SkillFileInfo } from '../skills.repository';

/** Files listed in a SKILL_CALL answer; the rest are counted. */
export const SKILL_INDEX_MAX_FILES = 50;
/** Characters of SKILL.md in the answer; beyond, the model reads on with `path`. */
export const SKILL_MD_MAX_CHARS = 20000;

export function skillRoot(name: string): string {
  return `/skills/${name}`;
}

/** The answer without `path`: SKILL.md, the file index (when the session can use the files), and what SKILL_CALL does. */
export function skillAnswer(input: {
  name: string;
  version: number;
  reason: string;
  skillMd: string;
  skillMdChars: number;
  files: SkillFileInfo[];
  offerFiles: boolean;
}): string {
  const root = skillRoot(input.name);
  const parts = [`Skill ${input.name} (release ${input.version}) is now active; chosen because ${input.reason}.`, ''];
  parts.push('=== SKILL.md ===', input.skillMd);
  if (input.skillMdChars > input.skillMd.length)
    parts.push(
      `[SKILL.md continues: ${input.skillMdChars} characters in all; read on with SKILL_CALL {"skill":"${input.name}","path":"SKILL.md","offset":${input.skillMd.length}}]`,
    );
  parts.push('');
  if (input.offerFiles) {
    const others = input.files.filter((f) => f.path !== 'SKILL.md');
    const shown = others.slice(0, SKILL_INDEX_MAX_FILES);
    parts.push(`=== Files of the skill (read-only in the sandbox at ${root}) ===`);
    for (const f of shown) parts.push(`- ${f.path} (${f.bytes} bytes)`);
    if (others.length > shown.length) parts.push(`- ... and ${others.length - shown.length} more`);
    parts.push(
      '',
      `Read a file with SKILL_CALL {"skill":"${input.name}","path":"<path>"}. SKILL_CALL only activates the skill and ` +
        `reads its files; it runs nothing. Scripts run only through RUN_COMMAND in the sandbox (from ${root}), ` +
        'as SKILL.md says.',
    );
  } else {
    parts.push(
      'Only SKILL.md exists for this session: no scripts, references or assets are available here. Follow the ' +
        'instructions above with the tools you have. SKILL_CALL only activates the skill and reads SKILL.md; it runs nothing.',
    );
  }
  return parts.join('\n');
}
