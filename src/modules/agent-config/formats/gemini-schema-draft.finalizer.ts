import { JsonSchema } from '@app/modules/tool-registry/tool-registry.types';
import { GEMINI_FORMATS, GEMINI_TYPE_KEYWORDS, GeminiType, SchemaDraft } from './gemini-schema.keywords';
import { movedKeywordsWarning } from './moved-keywords.warning';

/** The type a type-less draft implies: its keywords first, then the values of its enum. */
function inferType(draft: SchemaDraft): GeminiType | undefined {
  if (draft.properties || draft.required) return 'object';
  if (draft.items || draft.minItems !== undefined || draft.maxItems !== undefined) return 'array';
  if (draft.enum) return enumType(draft.enum);
  if (draft.minLength !== undefined || draft.maxLength !== undefined || draft.pattern !== undefined) return 'string';
  const bounds = [draft.minimum, draft.maximum, draft.exclusiveMinimum, draft.exclusiveMaximum];
  return bounds.some((bound) => bound !== undefined) ? 'number' : undefined;
}

function enumType(values: unknown[]): GeminiType | undefined {
  if (values.every((value) => typeof value === 'string')) return 'string';
  if (values.every((value) => typeof value === 'boolean')) return 'boolean';
  if (values.every((value) => Number.isInteger(value))) return 'integer';
  if (values.every((value) => typeof value === 'number')) return 'number';
  return undefined;
}

function withNote(description: string | undefined, note: string): string {
  return description ? `${description}\n${note}` : note;
}

/** The keywords Gemini has no place for, told after the description: `(uniqueItems: true; format: uri)`. */
function withNotes(description: string | undefined, notes: readonly string[] = []): string | undefined {
  return notes.length > 0 ? withNote(description, `(${notes.join('; ')})`) : description;
}

function asEnumString(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** An enum's values as Gemini's enum of strings lists them: each as text, once. */
function enumTexts(values: unknown[]): string[] {
  return [...new Set(values.map(asEnumString))];
}

function listedValues(values: unknown[]): string {
  return values.map((value) => JSON.stringify(value)).join(', ');
}

/**
 * Gemini refuses an empty string among enum values ("enum[0]: cannot be empty"): such an enum is written into the
 * description instead, where the model still reads every value (the gateway checks each call against the tool's own
 * schema).
 */
const EMPTY_ENUM_VALUE_REASON = 'as Gemini refuses an empty string among enum values';

/**
 * Numeric bounds Gemini understands: an integer's exclusive bound becomes the next integer in; a
 * number's becomes the inclusive bound (the nearest it can express).
 */
function numericBounds(draft: SchemaDraft, type: 'number' | 'integer', out: JsonSchema): void {
  const lows = [draft.minimum];
  const highs = [draft.maximum];
  if (draft.exclusiveMinimum !== undefined) {
    lows.push(type === 'integer' ? Math.floor(draft.exclusiveMinimum) + 1 : draft.exclusiveMinimum);
  }
  if (draft.exclusiveMaximum !== undefined) {
    highs.push(type === 'integer' ? Math.ceil(draft.exclusiveMaximum) - 1 : draft.exclusiveMaximum);
  }
  const low = lows.filter((n): n is number => n !== undefined);
  const high = highs.filter((n): n is number => n !== undefined);
  if (low.length > 0) out.minimum = Math.max(...low);
  if (high.length > 0) out.maximum = Math.min(...high);
}

/**
 * Second pass of the Gemini rewrite: settles each draft's type (inferred when absent: `object` from
 * properties, `array` from items, a uniform enum's type, ...), keeps only the keywords that type
 * allows and shapes them the way Gemini accepts them:
 * - `enum` is a list of strings and only allowed on strings. A string schema keeps its enum with
 *   every value stringified; any other type (or a mixed, type-less enum) keeps its declared type and
 *   the values move to the description, so the model still sends a number or a boolean. So do the values of an
 *   enum holding the empty string, which Gemini refuses in an enum.
 * - `format` survives only when Gemini documents it for that type.
 * - `required` keeps only names present in `properties`; an array always has `items`.
 * Each reshaped node (a stand-in sent as text, an enum or keywords moved into the description) is added to `warnings`
 * by its JSON pointer. A root union's alternatives are finalized as roots: the emitter lays their properties out side
 * by side and says itself what that loses, so none of them is a stand-in.
 */
export function finalizeGeminiSchema(draft: SchemaDraft, warnings: string[], depth = 0): JsonSchema {
  const type = draft.type ?? inferType(draft);
  const standIn = depth > 0 ? textStandIn(draft, type, warnings) : undefined;
  if (standIn) return standIn;
  const allowed: readonly (keyof SchemaDraft)[] = type ? GEMINI_TYPE_KEYWORDS[type] : [];
  const out: JsonSchema = {};
  if (type) out.type = type;
  if (draft.title !== undefined) out.title = draft.title;
  let description = draft.description;
  if (draft.nullable) out.nullable = true;
  if (draft.enum && draft.enum.length > 0) {
    const texts = enumTexts(draft.enum);
    if (type === 'string' && !texts.includes('')) out.enum = texts;
    else {
      description = withNote(description, `Allowed values: ${listedValues(draft.enum)}.`);
      const why = type === 'string' ? EMPTY_ENUM_VALUE_REASON : 'as Gemini takes enums of strings only';
      warnings.push(`${at(draft)}: its enum written into the description, ${why}`);
    }
  }
  const notes = [...(draft.notes ?? [])];
  const moved = [...(draft.moved ?? [])];
  if (draft.format !== undefined && type && GEMINI_FORMATS[type]?.includes(draft.format)) out.format = draft.format;
  else if (draft.format !== undefined) {
    notes.push(`format: ${draft.format}`);
    moved.push('format');
  }
  if (type === 'number' || type === 'integer') numericBounds(draft, type, out);
  if (type === 'number')
    for (const key of ['exclusiveMinimum', 'exclusiveMaximum'] as const)
      if (draft[key] !== undefined) {
        notes.push(`${key}: ${draft[key]}`);
        moved.push(key);
      }
  description = withNotes(description, notes);
  warnMoved(draft, moved, warnings);
  if (description !== undefined) out.description = description;
  for (const key of ['minLength', 'maxLength', 'pattern', 'minItems', 'maxItems'] as const) {
    if (allowed.includes(key) && draft[key] !== undefined) out[key] = draft[key];
  }
  const anyItem: SchemaDraft = { pointer: draft.pointer && `${draft.pointer}/items` };
  if (type === 'array') out.items = finalizeGeminiSchema(draft.items ?? anyItem, warnings, depth + 1);
  if (type === 'object') finalizeObject(draft, out, warnings, depth);
  const memberDepth = depth === 0 ? 0 : depth + 1;
  if (draft.anyOf) out.anyOf = draft.anyOf.map((member) => finalizeGeminiSchema(member, warnings, memberDepth));
  return out;
}

function at(draft: SchemaDraft): string {
  return draft.pointer ?? 'a schema';
}

/** Names the node whose keywords `moved` were written into its description, when there are any. */
function warnMoved(draft: SchemaDraft, moved: readonly string[], warnings: string[]): void {
  if (moved.length > 0) warnings.push(movedKeywordsWarning(at(draft), moved, 'Gemini'));
}

export const GEMINI_ANY_VALUE_NOTE = 'Any JSON value, sent as JSON text.';
export const GEMINI_OBJECT_AS_TEXT_NOTE = 'A JSON object, sent as JSON text (for example {"key": "value"}).';
export const GEMINI_ENUM_AS_TEXT_NOTE = 'Send the value as text.';

/**
 * Below the root, what Gemini has no schema for is sent as a string the gateway parses back (see the
 * argument reviver): a node of any type ("type must be specified"), an object with no properties (a map,
 * a free-form object, the recursion placeholder: "properties should be non-empty for OBJECT type") and
 * a mixed-type enum (Gemini enums are strings).
 */
function textStandIn(draft: SchemaDraft, type: GeminiType | undefined, warnings: string[]): JsonSchema | undefined {
  let note: string;
  const out: JsonSchema = { type: 'string' };
  if (!type && draft.anyOf) return undefined;
  if (!type && draft.enum && draft.enum.length > 0 && enumTexts(draft.enum).includes('')) {
    note = `Allowed values: ${listedValues(draft.enum)}. ${GEMINI_ENUM_AS_TEXT_NOTE}`;
    warnings.push(
      `${at(draft)}: an enum of mixed types sent as a string, its values in the description, ${EMPTY_ENUM_VALUE_REASON}`,
    );
  } else if (!type && draft.enum && draft.enum.length > 0) {
    out.enum = enumTexts(draft.enum);
    out.format = 'enum';
    note = GEMINI_ENUM_AS_TEXT_NOTE;
    warnings.push(`${at(draft)}: an enum of mixed types sent as a string enum of the values as text`);
  } else if (!type) {
    note = GEMINI_ANY_VALUE_NOTE;
    warnings.push(`${at(draft)}: a value of any type sent as JSON text`);
  } else if (type === 'object' && (!draft.properties || Object.keys(draft.properties).length === 0)) {
    note = GEMINI_OBJECT_AS_TEXT_NOTE;
    warnings.push(
      `${at(draft)}: an object without properties (a map, a free-form object, a recursion) sent as JSON text`,
    );
  } else return undefined;
  if (draft.title !== undefined) out.title = draft.title;
  out.description = withNote(withNotes(draft.description, draft.notes), note);
  warnMoved(draft, draft.moved ?? [], warnings);
  if (draft.nullable) out.nullable = true;
  return out;
}

function finalizeObject(draft: SchemaDraft, out: JsonSchema, warnings: string[], depth: number): void {
  if (!draft.properties) return;
  const properties = draft.properties;
  out.properties = Object.fromEntries(
    Object.entries(properties).map(([name, schema]) => [name, finalizeGeminiSchema(schema, warnings, depth + 1)]),
  );
  const required = [...new Set(draft.required ?? [])].filter((name) => Object.hasOwn(properties, name));
  if (required.length > 0) out.required = required;
}
