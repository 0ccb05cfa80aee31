import { GeminiSchemaRefResolver } from './gemini-schema-ref.resolver';
import { mergeSchemaDrafts } from './gemini-schema-draft.merger';
import { MAX_INLINED_SCHEMA_TEXT, childPointer, ownSchemaText } from './tool-spec-schema.walk';
import { describeBriefly } from './portable-json-schema.converter';
import {
  GEMINI_MAX_SCHEMA_DEPTH,
  GEMINI_MAX_SCHEMA_NODES,
  GEMINI_READ_KEYWORDS,
  GEMINI_SILENT_KEYWORDS,
  GEMINI_TYPE_KEYWORDS,
  GeminiType,
  SchemaDraft,
  isGeminiType,
  recursivePlaceholder,
  truncatedPlaceholder,
} from './gemini-schema.keywords';

type RawSchema = Record<string, unknown>;

const COUNT_KEYWORDS = ['minLength', 'maxLength', 'minItems', 'maxItems'] as const;
const BOUND_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const;

function isRawSchema(value: unknown): value is RawSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for a schema value that admits keys beyond the listed properties with constraints of their own. */
function declaresOtherKeys(schema: RawSchema): boolean {
  const patterns = schema.patternProperties;
  return isRawSchema(schema.additionalProperties) || (isRawSchema(patterns) && Object.keys(patterns).length > 0);
}

/** A draft that says only "null" (what `{type:'null'}` becomes): a union member that means nullable. */
function isNullOnly(draft: SchemaDraft): boolean {
  return draft.nullable === true && !draft.type && !draft.anyOf && !draft.properties && !draft.items && !draft.enum;
}

/**
 * First pass of the Gemini rewrite: walks a JSON Schema and builds a {@link SchemaDraft} with local
 * refs inlined, `allOf` merged, null unions turned into `nullable`, `const` into an enum and type
 * arrays split. Only the keywords a draft has are ever copied, so nothing else survives at any depth.
 * A ref back into a schema still being expanded becomes the `(recursive)` placeholder; beyond
 * {@link GEMINI_MAX_SCHEMA_DEPTH} levels, {@link GEMINI_MAX_SCHEMA_NODES} nodes or {@link MAX_INLINED_SCHEMA_TEXT}
 * characters of descriptions, enum values and the like, `(truncated)`.
 * Each draft carries the JSON pointer of the node it was written at; `warnings` names, by pointer, what this pass
 * drops or reshapes (a second union on one node, keys beside an object's properties, a tuple's positions).
 */
export class GeminiSchemaDraftBuilder {
  private readonly refs: GeminiSchemaRefResolver;
  private readonly inProgress = new Set<object>();
  private nodes = 0;
  /** The characters of the nodes built so far, besides their subschemas (see ownSchemaText). */
  private text = 0;
  /** Where each union of the draft was written, to name it when a merge drops it. */
  private readonly unionPointers = new WeakMap<SchemaDraft[], string>();
  readonly warnings: string[] = [];

  constructor(private readonly root: unknown) {
    this.refs = new GeminiSchemaRefResolver(root);
  }

  build(): SchemaDraft {
    return this.node(this.root, 0, '#') ?? {};
  }

  /** `undefined` for the `false` schema (nothing is valid), which callers drop. */
  private node(schema: unknown, depth: number, pointer: string): SchemaDraft | undefined {
    if (schema === false) return undefined;
    if (!isRawSchema(schema)) return { pointer };
    if (this.inProgress.has(schema)) return recursivePlaceholder(pointer);
    if (
      depth > GEMINI_MAX_SCHEMA_DEPTH ||
      ++this.nodes > GEMINI_MAX_SCHEMA_NODES ||
      (this.text += ownSchemaText(schema)) > MAX_INLINED_SCHEMA_TEXT
    )
      return truncatedPlaceholder(pointer);
    this.inProgress.add(schema);
    try {
      return this.combine(schema, depth + 1, pointer);
    } finally {
      this.inProgress.delete(schema);
    }
  }

  /**
   * Merges, in order: the ref target, the `allOf` members, a lone union member, the schema's own keywords. Gemini has
   * one `anyOf` per node: of several unions (`anyOf` and `oneOf`, a type list, a ref target's or an `allOf` member's),
   * the node's own first one is kept, else the last merged (a widening), and each other is a warning.
   */
  private combine(schema: RawSchema, depth: number, pointer: string): SchemaDraft {
    const parts: SchemaDraft[] = [];
    if (typeof schema.$ref === 'string') {
      const target = this.refs.resolve(schema.$ref);
      if (isRawSchema(target) && this.inProgress.has(target)) return recursivePlaceholder(pointer);
      const resolved = target === undefined ? undefined : this.node(target, depth, schema.$ref);
      if (resolved) parts.push(resolved);
    }
    (Array.isArray(schema.allOf) ? schema.allOf : []).forEach((member, i) => {
      const resolved = this.node(member, depth, childPointer(pointer, 'allOf', i));
      if (resolved) parts.push(resolved);
    });
    const own = this.own(schema, depth, pointer);
    for (const key of ['anyOf', 'oneOf'] as const) {
      const members = Array.isArray(schema[key]) ? (schema[key] as unknown[]) : [];
      const resolved = members
        .map((member, i) => this.node(member, depth, childPointer(pointer, key, i)))
        .filter((m): m is SchemaDraft => !!m);
      const alternatives = resolved.filter((member) => !isNullOnly(member));
      if (alternatives.length < resolved.length) own.nullable = true;
      if (alternatives.length === 1) parts.push(alternatives[0]);
      else if (alternatives.length > 1) {
        this.unionPointers.set(alternatives, childPointer(pointer, key));
        // Merged in before `own`, a second union is the one the merge drops.
        if (own.anyOf) parts.push({ anyOf: alternatives });
        else own.anyOf = alternatives;
      }
    }
    parts.push(own);
    return parts.reduce((a, b) => mergeSchemaDrafts(a, b, (dropped, kept) => this.droppedUnion(dropped, kept)));
  }

  private droppedUnion(dropped: SchemaDraft[], kept: SchemaDraft[]): void {
    const where = (union: SchemaDraft[]): string => this.unionPointers.get(union) ?? 'a union';
    this.warnings.push(
      `${where(dropped)} dropped: Gemini takes one union per schema, and ${where(kept)} is the one kept there`,
    );
  }

  private own(schema: RawSchema, depth: number, pointer: string): SchemaDraft {
    const draft: SchemaDraft = { pointer };
    if (typeof schema.title === 'string') draft.title = schema.title;
    if (typeof schema.description === 'string') draft.description = schema.description;
    const described = Object.entries(schema).filter(
      ([key]) => !GEMINI_READ_KEYWORDS.has(key) && !GEMINI_SILENT_KEYWORDS.has(key) && !key.startsWith('x-'),
    );
    if (described.length > 0) {
      draft.notes = described.map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
      draft.moved = described.map(([key]) => key);
    }
    if (schema.nullable === true) draft.nullable = true;
    if (typeof schema.format === 'string') draft.format = schema.format;
    if (typeof schema.pattern === 'string') draft.pattern = schema.pattern;
    for (const key of COUNT_KEYWORDS) {
      const value = schema[key];
      if (typeof value === 'number' && Number.isInteger(value) && value >= 0) draft[key] = value;
    }
    for (const key of BOUND_KEYWORDS) {
      const value = schema[key];
      if (typeof value === 'number' && Number.isFinite(value)) draft[key] = value;
    }
    if (Array.isArray(schema.required)) {
      draft.required = schema.required.filter((name): name is string => typeof name === 'string');
    }
    this.ownEnum(schema, draft);
    this.ownProperties(schema, draft, depth, pointer);
    this.ownItems(schema, draft, depth, pointer);
    return this.ownType(schema, draft, pointer);
  }

  /** `const` is an enum of one; `null` among the values means nullable instead. */
  private ownEnum(schema: RawSchema, draft: SchemaDraft): void {
    let values: unknown[];
    if (Object.hasOwn(schema, 'const')) values = [schema.const];
    else if (Array.isArray(schema.enum)) values = schema.enum;
    else return;
    if (values.includes(null)) draft.nullable = true;
    const kept = values.filter((value) => value !== null && value !== undefined);
    if (kept.length > 0) draft.enum = kept;
  }

  /** Keys beside the properties (`additionalProperties`, `patternProperties`) cannot be declared: a warning. */
  private ownProperties(schema: RawSchema, draft: SchemaDraft, depth: number, pointer: string): void {
    if (!isRawSchema(schema.properties)) return;
    const entries: [string, SchemaDraft][] = [];
    for (const [name, value] of Object.entries(schema.properties)) {
      const resolved = this.node(value, depth, childPointer(pointer, 'properties', name));
      if (resolved) entries.push([name, resolved]);
    }
    if (entries.length > 0 && declaresOtherKeys(schema))
      this.warnings.push(
        `${pointer}: the keys allowed beside its properties (additionalProperties, patternProperties) dropped: ` +
          'Gemini cannot declare them, so the model cannot send them',
      );
    // fromEntries defines own keys, so a property named "__proto__" stays a property.
    draft.properties = Object.fromEntries(entries);
  }

  /** A tuple (`prefixItems`, array `items`, `additionalItems`) becomes one `items` of its alternatives. */
  private ownItems(schema: RawSchema, draft: SchemaDraft, depth: number, pointer: string): void {
    const members: [unknown, string][] = [];
    const positions = (key: string, list: unknown[]): void =>
      list.forEach((member, i) => members.push([member, childPointer(pointer, key, i)]));
    if (Array.isArray(schema.prefixItems)) positions('prefixItems', schema.prefixItems as unknown[]);
    if (Array.isArray(schema.items)) {
      positions('items', schema.items as unknown[]);
      if (schema.additionalItems !== undefined)
        members.push([schema.additionalItems, childPointer(pointer, 'additionalItems')]);
    } else if (schema.items !== undefined) members.push([schema.items, childPointer(pointer, 'items')]);
    const resolved = members.map(([member, at]) => this.node(member, depth, at)).filter((m): m is SchemaDraft => !!m);
    const tuple = Array.isArray(schema.prefixItems)
      ? schema.prefixItems
      : Array.isArray(schema.items)
        ? schema.items
        : [];
    if (members.length > 1 || tuple.length > 0) {
      this.warnings.push(`${pointer}: a tuple sent as an array of any of its positions' schemas, in any order`);
      const note = `positions: ${tuple.map((p: unknown, i) => `${i + 1}: ${describeBriefly(p)}`).join(', ')}`;
      draft.notes = [...(draft.notes ?? []), note];
      const rest = Array.isArray(schema.prefixItems) ? schema.items : schema.additionalItems;
      if (rest === false) draft.maxItems = Math.min(draft.maxItems ?? tuple.length, tuple.length);
    }
    if (resolved.length === 1) draft.items = resolved[0];
    else if (resolved.length > 1) {
      this.unionPointers.set(
        resolved,
        childPointer(pointer, Array.isArray(schema.prefixItems) ? 'prefixItems' : 'items'),
      );
      draft.items = { anyOf: resolved, pointer: childPointer(pointer, 'items') };
    }
  }

  /** `['x', 'null']` is x and nullable; several real types become an `anyOf`, one member per type. */
  private ownType(schema: RawSchema, draft: SchemaDraft, pointer: string): SchemaDraft {
    const declared = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
    if (declared.includes('null')) draft.nullable = true;
    const types = [...new Set(declared.filter(isGeminiType))];
    if (types.length === 1) draft.type = types[0];
    if (types.length <= 1) return draft;
    // The keywords written into the description stay on the union, said once for all its types.
    const { title, description, nullable, notes, moved } = draft;
    const shared: SchemaDraft = { title, description, nullable, notes, moved };
    for (const key of Object.keys(shared) as (keyof SchemaDraft)[]) if (shared[key] === undefined) delete shared[key];
    const anyOf = types.map((type) => this.typedPart(draft, type, pointer));
    this.unionPointers.set(anyOf, childPointer(pointer, 'type'));
    return { ...shared, pointer, anyOf };
  }

  private typedPart(draft: SchemaDraft, type: GeminiType, pointer: string): SchemaDraft {
    const part: Record<string, unknown> = { type, pointer };
    for (const key of GEMINI_TYPE_KEYWORDS[type]) if (draft[key] !== undefined) part[key] = draft[key];
    return part;
  }
}
