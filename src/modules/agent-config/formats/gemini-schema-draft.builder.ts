import { GeminiSchemaRefResolver } from './gemini-schema-ref.resolver';
import { mergeSchemaDrafts } from './gemini-schema-draft.merger';
import {
  GEMINI_MAX_SCHEMA_DEPTH,
  GEMINI_MAX_SCHEMA_NODES,
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

/** A draft that says only "null" (what `{type:'null'}` becomes): a union member that means nullable. */
function isNullOnly(draft: SchemaDraft): boolean {
  return draft.nullable === true && !draft.type && !draft.anyOf && !draft.properties && !draft.items && !draft.enum;
}

/**
 * First pass of the Gemini rewrite: walks a JSON Schema and builds a {@link SchemaDraft} with local
 * refs inlined, `allOf` merged, null unions turned into `nullable`, `const` into an enum and type
 * arrays split. Only the keywords a draft has are ever copied, so nothing else survives at any depth.
 * A ref back into a schema still being expanded becomes the `(recursive)` placeholder; beyond
 * {@link GEMINI_MAX_SCHEMA_DEPTH} levels or {@link GEMINI_MAX_SCHEMA_NODES} nodes, `(truncated)`.
 */
export class GeminiSchemaDraftBuilder {
  private readonly refs: GeminiSchemaRefResolver;
  private readonly inProgress = new Set<object>();
  private nodes = 0;

  constructor(private readonly root: unknown) {
    this.refs = new GeminiSchemaRefResolver(root);
  }

  build(): SchemaDraft {
    return this.node(this.root, 0) ?? {};
  }

  /** `undefined` for the `false` schema (nothing is valid), which callers drop. */
  private node(schema: unknown, depth: number): SchemaDraft | undefined {
    if (schema === false) return undefined;
    if (!isRawSchema(schema)) return {};
    if (this.inProgress.has(schema)) return recursivePlaceholder();
    if (depth > GEMINI_MAX_SCHEMA_DEPTH || ++this.nodes > GEMINI_MAX_SCHEMA_NODES) return truncatedPlaceholder();
    this.inProgress.add(schema);
    try {
      return this.combine(schema, depth + 1);
    } finally {
      this.inProgress.delete(schema);
    }
  }

  /** Merges, in order: the ref target, the `allOf` members, a lone union member, the schema's own keywords. */
  private combine(schema: RawSchema, depth: number): SchemaDraft {
    const parts: SchemaDraft[] = [];
    if (typeof schema.$ref === 'string') {
      const target = this.refs.resolve(schema.$ref);
      if (isRawSchema(target) && this.inProgress.has(target)) return recursivePlaceholder();
      const resolved = target === undefined ? undefined : this.node(target, depth);
      if (resolved) parts.push(resolved);
    }
    for (const member of Array.isArray(schema.allOf) ? schema.allOf : []) {
      const resolved = this.node(member, depth);
      if (resolved) parts.push(resolved);
    }
    const own = this.own(schema, depth);
    for (const key of ['anyOf', 'oneOf'] as const) {
      const members = Array.isArray(schema[key]) ? (schema[key] as unknown[]) : [];
      const resolved = members.map((member) => this.node(member, depth)).filter((m): m is SchemaDraft => !!m);
      const alternatives = resolved.filter((member) => !isNullOnly(member));
      if (alternatives.length < resolved.length) own.nullable = true;
      // Gemini has one `anyOf`: when both keywords hold real alternatives, the first is kept (a widening).
      if (alternatives.length === 1) parts.push(alternatives[0]);
      else if (alternatives.length > 1 && !own.anyOf) own.anyOf = alternatives;
    }
    parts.push(own);
    return parts.reduce(mergeSchemaDrafts);
  }

  private own(schema: RawSchema, depth: number): SchemaDraft {
    const draft: SchemaDraft = {};
    if (typeof schema.title === 'string') draft.title = schema.title;
    if (typeof schema.description === 'string') draft.description = schema.description;
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
    this.ownProperties(schema, draft, depth);
    this.ownItems(schema, draft, depth);
    return this.ownType(schema, draft);
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

  private ownProperties(schema: RawSchema, draft: SchemaDraft, depth: number): void {
    if (!isRawSchema(schema.properties)) return;
    const entries: [string, SchemaDraft][] = [];
    for (const [name, value] of Object.entries(schema.properties)) {
      const resolved = this.node(value, depth);
      if (resolved) entries.push([name, resolved]);
    }
    // fromEntries defines own keys, so a property named "__proto__" stays a property.
    draft.properties = Object.fromEntries(entries);
  }

  /** A tuple (`prefixItems`, array `items`, `additionalItems`) becomes one `items` of its alternatives. */
  private ownItems(schema: RawSchema, draft: SchemaDraft, depth: number): void {
    const members: unknown[] = [];
    if (Array.isArray(schema.prefixItems)) members.push(...(schema.prefixItems as unknown[]));
    if (Array.isArray(schema.items)) {
      members.push(...(schema.items as unknown[]));
      if (schema.additionalItems !== undefined) members.push(schema.additionalItems);
    } else if (schema.items !== undefined) members.push(schema.items);
    const resolved = members.map((member) => this.node(member, depth)).filter((m): m is SchemaDraft => !!m);
    if (resolved.length === 1) draft.items = resolved[0];
    else if (resolved.length > 1) draft.items = { anyOf: resolved };
  }

  /** `['x', 'null']` is x and nullable; several real types become an `anyOf`, one member per type. */
  private ownType(schema: RawSchema, draft: SchemaDraft): SchemaDraft {
    const declared = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
    if (declared.includes('null')) draft.nullable = true;
    const types = [...new Set(declared.filter(isGeminiType))];
    if (types.length === 1) draft.type = types[0];
    if (types.length <= 1) return draft;
    const { title, description, nullable } = draft;
    const shared: SchemaDraft = { title, description, nullable };
    for (const key of Object.keys(shared) as (keyof SchemaDraft)[]) if (shared[key] === undefined) delete shared[key];
    return { ...shared, anyOf: types.map((type) => this.typedPart(draft, type)) };
  }

  private typedPart(draft: SchemaDraft, type: GeminiType): SchemaDraft {
    const part: Record<string, unknown> = { type };
    for (const key of GEMINI_TYPE_KEYWORDS[type]) if (draft[key] !== undefined) part[key] = draft[key];
    return part;
  }
}
