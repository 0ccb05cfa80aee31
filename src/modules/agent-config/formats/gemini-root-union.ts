import type { JsonSchema } from '@app/modules/tool-registry/tool-registry.types';
import { keysOnlyAlternative } from './gemini-root-map';
import { GeminiSchemaRefResolver } from './gemini-schema-ref.resolver';
import { declaredTypes, isRawSchema, type RawSchema } from './tool-spec-schema.walk';

/**
 * What Gemini's spec loses of a root union (`anyOf`/`oneOf` at the root), which its emitter lays out as one object
 * (Gemini needs an OBJECT with properties at the root), for the admin (checklist MODEL_GEMINI, explained
 * tool-specs): the layout itself; each alternative that has no properties to lay out (a map, a free-form object),
 * which the model then cannot send; a second union, as Gemini takes one. Alternatives that only constrain the root's
 * own properties (`{required: ["a"]}`) lose nothing but the rule the layout warning names. Empty without a union.
 */
export function geminiRootUnionWarnings(schema: JsonSchema, laidOut: number): string[] {
  if (laidOut === 0) return [];
  const refs = new GeminiSchemaRefResolver(schema);
  const unions = (['anyOf', 'oneOf'] as const)
    .map((key) => ({ key, members: alternatives(schema[key], refs) }))
    .filter((union) => union.members.length > 0);
  const warnings = [
    `root union of ${laidOut} alternatives laid out as one object: Gemini is not told which arguments go together`,
  ];
  // The converter keeps the first union of several alternatives (Gemini has one `anyOf`); a lone one is merged.
  const kept = unions.find((union) => union.members.length > 1) ?? unions[0];
  for (const union of unions) {
    if (union !== kept && union.members.length > 1)
      warnings.push(`root ${union.key} dropped: Gemini takes one union, and the root's ${kept.key} is the one kept`);
  }
  kept?.members.forEach((member, i) => {
    const kind = keysOnlyAlternative(member);
    if (kind)
      warnings.push(
        `root ${kept.key} alternative ${i + 1} (${kind}) dropped: Gemini cannot declare it, so the model cannot send it`,
      );
  });
  return warnings;
}

/** A union's members, refs resolved, without the null ones (they make the root nullable, which Gemini drops). */
function alternatives(value: unknown, refs: GeminiSchemaRefResolver): RawSchema[] {
  if (!Array.isArray(value)) return [];
  return value
    .map((member: unknown) =>
      isRawSchema(member) && typeof member.$ref === 'string' ? refs.resolve(member.$ref) : member,
    )
    .filter(isRawSchema)
    .filter((member) => !(declaredTypes(member).length === 1 && declaredTypes(member)[0] === 'null'));
}
