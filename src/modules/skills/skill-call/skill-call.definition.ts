import type { BuiltinToolDefinition } from '@app/modules/tool-registry/builtin-tool.catalog';

export const SKILL_CALL_TOOL_NAME = 'SKILL_CALL';

/** Characters of a file SKILL_CALL returns by default and at most (`limit`). */
export const SKILL_CALL_DEFAULT_LIMIT = 4000;
export const SKILL_CALL_MAX_LIMIT = 20000;

export const SKILL_CALL_DEFINITION: BuiltinToolDefinition = {
  name: SKILL_CALL_TOOL_NAME,
  description:
    "Activate one of the agent's skills and read it. Without `path`: the skill's SKILL.md (its instructions) and its " +
    'file index. With `path`: part of one file of the skill (from `offset`, at most `limit` characters). Without ' +
    "`skill`, the skill named by the session's task, or the bound skill that best matches the task. It only reads: " +
    'scripts run through RUN_COMMAND in the sandbox, as SKILL.md says.',
  parameters: {
    type: 'object',
    properties: {
      skill: {
        type: 'string',
        pattern: '^[a-z0-9][a-z0-9-]{0,63}$',
        description: 'The skill name (default: chosen from the session task)',
      },
      path: {
        type: 'string',
        minLength: 1,
        maxLength: 600,
        description: 'A file of the skill, relative to its folder (e.g. references/guide.md)',
      },
      offset: { type: 'integer', minimum: 0, description: 'First character to read (default 0)' },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: SKILL_CALL_MAX_LIMIT,
        description: `How many characters (default ${SKILL_CALL_DEFAULT_LIMIT})`,
      },
    },
    additionalProperties: false,
  },
  endpoint: 'Skills.call',
  // It reads; marking the session's active skill is bookkeeping. READ_ONLY agents keep their skills.
  sideEffect: 'READ_ONLY',
  requires: ['SKILL'],
};
