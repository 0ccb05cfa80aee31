import { JsonSchema } from '@app/modules/tool-registry/tool-registry.types';
import { OpenAiResponsesToolSpec, ToolSpecSource } from './model-format.types';
import { hasRegexLookaround } from './openai-strict-spec.validator';
import { toOpenAiStrictToolSpec } from './openai-strict-tool-spec.emitter';
import { movedKeywordsWarning } from './moved-keywords.warning';
import { childPointer, childSchemas, isRawSchema, pushToPopInOrder } from './tool-spec-schema.walk';

/**
 * A tool for the OpenAI Responses API: the flat function shape, strict by default as that API is
 * (`strict: false` and warnings for a schema strict mode cannot express, as with `strict: true` on Chat Completions).
 * That API refuses a `pattern` with a lookaround in any tool, strict or not: in one emitted with `strict: false`,
 * such a pattern moves into the description, as the strict rewrite does it (the gateway still checks it on each call),
 * and a warning names its node.
 */
export function toOpenAiResponsesToolSpec(tool: ToolSpecSource): { spec: OpenAiResponsesToolSpec; warnings: string[] } {
  const { spec, warnings } = toOpenAiStrictToolSpec(tool);
  const { name, description, strict } = spec.function;
  const parameters =
    strict === true ? spec.function.parameters : withoutLookaroundPatterns(spec.function.parameters, warnings);
  return { spec: { type: 'function', name, description, parameters, strict: strict === true }, warnings };
}

/**
 * `schema` (our own copy) with each `pattern` holding a lookaround moved into its node's description, and a warning
 * added to `warnings` for each such node, by its JSON pointer, in document order.
 */
function withoutLookaroundPatterns(schema: JsonSchema, warnings: string[]): JsonSchema {
  const seen = new Set<object>();
  const stack: [unknown, string][] = [[schema, '#']];
  while (stack.length > 0) {
    const [node, pointer] = stack.pop()!;
    if (!isRawSchema(node) || seen.has(node)) continue;
    seen.add(node);
    if (typeof node.pattern === 'string' && hasRegexLookaround(node.pattern)) {
      const note = `(pattern: ${JSON.stringify(node.pattern)})`;
      node.description = typeof node.description === 'string' ? `${node.description} ${note}` : note;
      delete node.pattern;
      warnings.push(movedKeywordsWarning(pointer, ['pattern'], 'the Responses API'));
    }
    const children = childSchemas(node).map(([tokens, child]): [unknown, string] => [
      child,
      childPointer(pointer, ...tokens),
    ]);
    pushToPopInOrder(stack, children);
  }
  return schema;
}
