import type { JsonSchema } from '@app/modules/tool-registry/tool-registry.types';
import { keysOnlyAlternative } from './gemini-root-map';
import { GeminiSchemaRefResolver } from './gemini-schema-ref.resolver';
import { childPointer, declaredTypes, isRawSchema, type RawSchema } from './tool-spec-schema.walk';

/**
 * What Gemini's spec loses of a root union (`anyOf`/`oneOf` at the root), which its emitter lays out as one object
 * (Gemini needs an OBJECT with properties at the root), for the admin (checklist MODEL_GEMINI, explained
 * tool-specs): the layout itself; each alternative that has no properties to lay out (a map, a free-form object),
 * which the model then cannot send, named by its JSON pointer, also in an alternative that is a union in turn (laid
 * out too). Alternatives that only constrain the root's own properties (`{required: ["a"]}`) lose nothing but the
 * rule the layout warning names. A second union the layout leaves out is the converter's warning. Empty without a
 * union.
 */
export function geminiRootUnionWarnings(schema: JsonSchema, laidOut: number): string[] {
  if (laidOut === 0) return [];
  const warnings = [
    `#: root union of ${laidOut} alternatives laid out as one object: Gemini is not told which arguments go together`,
  ];
  droppedAlternatives(schema, '#', new GeminiSchemaRefResolver(schema), warnings, new Set());
  return warnings;
}

/**
 * The alternatives the layout drops of the union the converter keeps on `node` (its first of several alternatives),
 * and of the unions of its alternatives in turn.
 */
function droppedAlternatives(
  node: RawSchema,
  pointer: string,
  refs: GeminiSchemaRefResolver,
  warnings: string[],
  seen: Set<RawSchema>,
): void {
  if (seen.has(node)) return;
  seen.add(node);
  const unions = (['anyOf', 'oneOf'] as const)
    .map((key) => ({ key, members: alternatives(node[key], refs) }))
    .filter((union) => union.members.length > 0);
  const kept = unions.find((union) => union.members.length > 1) ?? unions[0];
  kept?.members.forEach(([member, i]) => {
    const at = childPointer(pointer, kept.key, i);
    const kind = keysOnlyAlternative(member);
    if (kind)
      warnings.push(`${at}: alternative (${kind}) dropped: Gemini cannot declare it, so the model cannot send it`);
    else droppedAlternatives(member, at, refs, warnings, seen);
  });
}

/** A union's members with their positions, refs resolved, without the null ones (they make the root nullable). */
function alternatives(value: unknown, refs: GeminiSchemaRefResolver): [RawSchema, number][] {
  if (!Array.isArray(value)) return [];
  return value
    .map((member: unknown, i): [unknown, number] => [
      isRawSchema(member) && typeof member.$ref === 'string' ? refs.resolve(member.$ref) : member,
      i,
    ])
    .filter((entry): entry is [RawSchema, number] => isRawSchema(entry[0]))
    .filter(([member]) => !(declaredTypes(member).length === 1 && declaredTypes(member)[0] === 'null'));
}
