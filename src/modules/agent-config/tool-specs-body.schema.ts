import type { FromSchema } from '@app/common/http/json-schema.type';
import { SAFE_LINE_PATTERN } from '@app/common/safe-text';
import { TOOL_REQUIREMENTS } from '@app/modules/tool-registry/tool-registry.types';
import { WEB_SEARCH_MODES } from './agent-config.types';
import { MODEL_FORMATS } from './formats/model-formats';

/**
 * The tool-specs body (runtime and admin preview), described once: ajv validates requests against it, Swagger
 * shows it (component ToolSpecsBody) and {@link ToolSpecsBody} is derived from it (see SchemaBody).
 */
export const TOOL_SPECS_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['userId', 'permissions'],
  properties: {
    userId: { type: 'string', minLength: 1, maxLength: 128, pattern: SAFE_LINE_PATTERN, example: 'u-42' },
    permissions: {
      type: 'array',
      maxItems: 1000,
      items: { type: 'string', minLength: 1, maxLength: 128 },
      description: 'Permission tags the user holds',
    },
    sessionId: {
      type: 'string',
      minLength: 1,
      maxLength: 64,
      description:
        "A session of this agent: its permissions and capabilities replace the body's, and the answer adds reminders",
    },
    capabilities: { type: 'array', items: { enum: TOOL_REQUIREMENTS }, description: 'What the session can provide' },
    webSearchMode: { enum: WEB_SEARCH_MODES, description: "Can only narrow the agent's mode" },
    format: {
      enum: MODEL_FORMATS,
      default: 'openai',
      description: "openai-responses: the Responses API's flat function tools, strict by default",
    },
    explain: { type: 'boolean', description: 'Also return a decision for every candidate tool' },
    strict: {
      type: 'boolean',
      description:
        'OpenAI strict mode (format openai only): each function carries strict: true and a schema strict mode accepts; ' +
        'a tool whose schema cannot be written that way is emitted with strict: false and, with explain, warnings in its decision',
    },
  },
  'x-only-with': { strict: { needs: { format: 'openai' }, because: "OpenAI's mode" } },
} as const;

/** The tool-specs body as validated. */
export type ToolSpecsBody = FromSchema<typeof TOOL_SPECS_BODY_SCHEMA>;
