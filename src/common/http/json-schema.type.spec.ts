import type { ActBody } from '@app/modules/loop-acting/sessions/act-body.schema';
import type { ExecuteDirectBody } from '@app/modules/tool-invocation/execute-direct-body.schema';
import type { ToolSpecsBody } from '@app/modules/agent-config/tool-specs-body.schema';
import type { FromSchema } from './json-schema.type';

/** `true` only when A and B are the same type (checked by `npm run typecheck`; the assertions make it run). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

describe('FromSchema', () => {
  it('maps scalars, enums, const and anyOf', () => {
    const checks: [
      Same<FromSchema<{ type: 'string'; maxLength: 3 }>, string>,
      Same<FromSchema<{ type: 'integer' }>, number>,
      Same<FromSchema<{ type: 'boolean' }>, boolean>,
      Same<FromSchema<{ enum: readonly ['A', 'B'] }>, 'A' | 'B'>,
      Same<FromSchema<{ const: 7 }>, 7>,
      Same<FromSchema<{ anyOf: readonly [{ type: 'object' }, { type: 'string' }] }>, Record<string, unknown> | string>,
    ] = [true, true, true, true, true, true];
    expect(checks.every(Boolean)).toBe(true);
  });

  it('makes required properties required and the others optional, arrays of their items', () => {
    type Schema = {
      type: 'object';
      required: readonly ['a'];
      properties: { a: { type: 'array'; items: { type: 'number' } }; b: { type: 'string' } };
    };
    const check: Same<FromSchema<Schema>, { a: number[]; b?: string }> = true;
    expect(check).toBe(true);
  });

  it('derives the act, execute and tool-specs bodies from their schemas', () => {
    const checks: [
      Same<
        ActBody,
        {
          iteration: number;
          toolCalls: Array<{ id: string; name: string; arguments: Record<string, unknown> | string }>;
          format?: 'openai' | 'anthropic' | 'gemini' | 'openai-responses';
        }
      >,
      Same<
        ExecuteDirectBody,
        {
          agentId: string;
          userId: string;
          permissions: string[];
          arguments: Record<string, unknown> | string;
          capabilities?: Array<'SANDBOX' | 'FILE_ROOM' | 'MCP'>;
          toolCallId?: string;
          format?: 'openai' | 'anthropic' | 'gemini' | 'openai-responses';
        }
      >,
      Same<
        ToolSpecsBody,
        {
          userId: string;
          permissions: string[];
          sessionId?: string;
          capabilities?: Array<'SANDBOX' | 'FILE_ROOM' | 'MCP'>;
          webSearchMode?: 'DISABLED' | 'AUTO' | 'ALWAYS';
          format?: 'openai' | 'anthropic' | 'gemini' | 'openai-responses';
          explain?: boolean;
          strict?: boolean;
        }
      >,
    ] = [true, true, true];
    expect(checks.every(Boolean)).toBe(true);
  });
});
