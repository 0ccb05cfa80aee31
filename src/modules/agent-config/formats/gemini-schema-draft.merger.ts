import { SchemaDraft } from './gemini-schema.keywords';

const LOWER_BOUNDS = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems']);
const UPPER_BOUNDS = new Set(['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems']);

/** Told of each union a merge drops because the other side has one too (Gemini takes one `anyOf` per node). */
export type DroppedUnionListener = (dropped: SchemaDraft[], kept: SchemaDraft[]) => void;

function mergeProperties(
  a: Record<string, SchemaDraft>,
  b: Record<string, SchemaDraft>,
  onDroppedUnion?: DroppedUnionListener,
): Record<string, SchemaDraft> {
  const merged = new Map(Object.entries(a));
  for (const [name, schema] of Object.entries(b)) {
    const existing = merged.get(name);
    merged.set(name, existing ? mergeSchemaDrafts(existing, schema, onDroppedUnion) : schema);
  }
  return Object.fromEntries(merged);
}

function mergeEnums(a: unknown[], b: unknown[]): unknown[] {
  const common = a.filter((value) => b.includes(value));
  return common.length > 0 ? common : b;
}

/**
 * Both drafts as one, the way `allOf` (and a `$ref` with sibling keywords) combines them: properties
 * `required`, `notes` and `moved` are united (a property both define is merged in turn), bounds take the stricter
 * value, enums intersect, `integer` beats `number`. Annotations, `type`, `format`, `pattern` and
 * `anyOf` come from `b` when both have them (a `pattern` or `format` of `a` that differs goes to the notes), so pass the more specific schema second (`onDroppedUnion` hears of
 * each `anyOf` of `a` lost that way, at any depth). `nullable` is kept when either side allows null (a widening
 * Gemini cannot express more exactly).
 */
export function mergeSchemaDrafts(a: SchemaDraft, b: SchemaDraft, onDroppedUnion?: DroppedUnionListener): SchemaDraft {
  const out: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b) as [keyof SchemaDraft, unknown][]) {
    const current = out[key];
    if (current === undefined) out[key] = value;
    else if (key === 'properties') out[key] = mergeProperties(a.properties ?? {}, b.properties ?? {}, onDroppedUnion);
    else if (key === 'required') out[key] = [...new Set([...(a.required ?? []), ...(b.required ?? [])])];
    else if (key === 'notes' || key === 'moved') out[key] = [...new Set([...(current as string[]), ...(b[key] ?? [])])];
    else if (key === 'items') out[key] = mergeSchemaDrafts(a.items ?? {}, b.items ?? {}, onDroppedUnion);
    else if (key === 'enum') out[key] = mergeEnums(a.enum ?? [], b.enum ?? []);
    else if (key === 'nullable') out[key] = Boolean(a.nullable) || Boolean(b.nullable);
    else if (LOWER_BOUNDS.has(key)) out[key] = Math.max(current as number, value as number);
    else if (UPPER_BOUNDS.has(key)) out[key] = Math.min(current as number, value as number);
    else if (key === 'type' && current === 'integer' && value === 'number') out[key] = 'integer';
    else if (key === 'pattern' || key === 'format') {
      // Both apply, and Gemini has one place for either: the one not kept is told in the description.
      if (current !== value) {
        const note = `${key}: ${key === 'pattern' ? JSON.stringify(current) : (current as string)}`;
        out.notes = [...new Set([...((out.notes as string[] | undefined) ?? []), note])];
        out.moved = [...new Set([...((out.moved as string[] | undefined) ?? []), key])];
      }
      out[key] = value;
    } else {
      if (key === 'anyOf' && current !== value) onDroppedUnion?.(current as SchemaDraft[], value as SchemaDraft[]);
      out[key] = value;
    }
  }
  return out;
}
