import { JsonSchema } from '@app/modules/tool-registry/tool-registry.types';
import { GeminiSchemaRefResolver } from './gemini-schema-ref.resolver';
import { OPENAI_STRICT_FORMATS, hasRegexLookaround, propertySignature } from './openai-strict-spec.validator';
import {
  MAX_INLINED_SCHEMA_TEXT,
  RawSchema,
  childPointer,
  declaredTypes,
  isRawSchema,
  ownSchemaText,
  pointerTokenText,
  typesTake,
} from './tool-spec-schema.walk';
import { movedKeywordsWarning } from './moved-keywords.warning';

/**
 * The strict rewrite of a schema with a warning for each node whose keywords it moved into the description (by its JSON
 * pointer), or why it cannot be written that way (each reason naming its node's JSON pointer).
 */
export type StrictSchemaResult = { ok: true; schema: JsonSchema; moved: string[] } | { ok: false; problems: string[] };

/** Keywords strict mode supports that are copied as they are (`anyOf`, objects and arrays are rebuilt). */
const KEPT = [
  'description',
  'enum',
  'const',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
] as const;
/** Keywords that mean nothing to the model or to strict mode: dropped without a note. */
const SILENT = new Set([
  '$schema',
  '$id',
  '$comment',
  '$anchor',
  '$defs',
  'definitions',
  'title',
  'deprecated',
  'readOnly',
  'writeOnly',
  'nullable',
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  'oneOf',
  'format',
  '$ref',
  'contentMediaType',
  'contentEncoding',
]);

/**
 * A portable schema (see portable-json-schema.converter.ts) rewritten for OpenAI strict mode
 * (openai-strict-spec.validator.ts): local refs inlined; every object closed with
 * `additionalProperties: false` and every property listed in `required`, an optional one made a union
 * with `null` (the null is mapped back before the tool's own schema validates the arguments); `oneOf`
 * becomes `anyOf`; keywords strict mode does not support (`minLength`, `default`, `uniqueItems`, formats
 * outside its list, a `pattern` with a lookaround, ...) move into the description. What strict mode cannot express is reported instead:
 * maps and free-form objects, nodes of any type, `allOf` of anything but objects (objects are merged), recursion through anything but the
 * root (`#`) or a definition (kept under `$defs`, which strict mode supports).
 */
export function toOpenAiStrictSchema(portable: JsonSchema): StrictSchemaResult {
  const problems: string[] = [];
  const converter = new StrictConverter(portable, problems);
  const schema = converter.root(portable);
  const defs = converter.definitions();
  if (Object.keys(defs).length > 0) schema.$defs = defs;
  return problems.length > 0 ? { ok: false, problems } : { ok: true, schema, moved: [...new Set(converter.moved)] };
}

/** Bound on the nodes built while inlining refs: a hostile ref graph can double at every level. */
const STRICT_MAX_SCHEMA_NODES = 10_000;

/** A definition a recursive ref can point to in the output: `#/$defs/X` or `#/definitions/X`. */
const DEFINITION_REF = /^#\/(?:\$defs|definitions)\/([^/]+)$/;

/** The ref to the output definition `name`: a JSON pointer token (`~0`, `~1`), percent-encoded as a URI fragment. */
function definitionRef(name: string): string {
  return `#/$defs/${encodeURIComponent(name.replace(/~/g, '~0').replace(/\//g, '~1'))}`;
}

function decodedOr(token: string): string {
  try {
    return decodeURIComponent(token);
  } catch {
    return token;
  }
}

class StrictConverter {
  private readonly refs: GeminiSchemaRefResolver;
  private readonly expanding = new Set<object>();
  /** Definitions a recursive ref points to: converted once, after the root, into the output's `$defs`. */
  private readonly pending = new Map<string, RawSchema>();
  /** The output `$defs` key of each definition a recursive ref points to. */
  private readonly definitionNames = new Map<RawSchema, string>();
  private nodes = 0;
  /** The characters of the nodes converted so far, besides their subschemas (see ownSchemaText). */
  private text = 0;
  /** A warning for each node whose keywords were moved into its description. */
  readonly moved: string[] = [];

  constructor(
    root: unknown,
    private readonly problems: string[],
  ) {
    this.refs = new GeminiSchemaRefResolver(root);
  }

  /** The root: a ref back to it (`#`) stays a ref. */
  root(root: RawSchema): RawSchema {
    this.expanding.add(root);
    try {
      return this.node(root, '#', true);
    } finally {
      this.expanding.delete(root);
    }
  }

  node(source: unknown, path: string, required: boolean): RawSchema {
    if (++this.nodes > STRICT_MAX_SCHEMA_NODES) {
      return this.nodes === STRICT_MAX_SCHEMA_NODES + 1
        ? this.fail(path, `is larger than ${STRICT_MAX_SCHEMA_NODES} nodes once its refs are inlined`)
        : {};
    }
    if (!isRawSchema(source)) return this.fail(path, 'is not a schema object');
    if (this.text <= MAX_INLINED_SCHEMA_TEXT && (this.text += ownSchemaText(source)) > MAX_INLINED_SCHEMA_TEXT)
      return this.fail(
        path,
        `would write more than ${MAX_INLINED_SCHEMA_TEXT} characters of descriptions, enum values and the like once its refs are inlined`,
      );
    if (this.text > MAX_INLINED_SCHEMA_TEXT) return {};
    let schema = source;
    if (typeof schema.$ref === 'string') {
      const target = this.refs.resolve(schema.$ref);
      if (!isRawSchema(target)) return this.fail(path, `has a $ref ${schema.$ref} that does not resolve`);
      if (this.expanding.has(target)) return this.recursiveRef(schema.$ref, target, path, required);
      const { $ref: _ref, ...siblings } = schema;
      this.expanding.add(target);
      try {
        return this.node(withSiblings(target, siblings), path, required);
      } finally {
        this.expanding.delete(target);
      }
    }
    if (Array.isArray(schema.allOf)) {
      const merged = this.mergedObjects(schema, schema.allOf);
      if (!merged)
        return this.fail(path, 'uses allOf of schemas that are not all objects, which strict mode cannot express');
      return this.node(merged, path, required);
    }
    if (schema.oneOf !== undefined && schema.anyOf === undefined) schema = { ...schema, anyOf: schema.oneOf };
    const out: RawSchema = {};
    // Each keyword moved into the description, and how the description writes it.
    const moved: [keyword: string, note: string][] = [];
    for (const key of KEPT) if (schema[key] !== undefined) out[key] = schema[key];
    for (const [key, value] of Object.entries(schema)) {
      if (!SILENT.has(key) && !(KEPT as readonly string[]).includes(key) && !key.startsWith('x-'))
        moved.push([key, `${key}: ${JSON.stringify(value)}`]);
    }
    const types = declaredTypes(schema);
    if (schema.nullable === true && !types.includes('null') && types.length > 0) types.push('null');
    // A value the node's own type refuses is never valid (the gateway checks the tool's schema): strict mode refuses it.
    if (Array.isArray(out.enum) && types.length > 0) {
      out.enum = out.enum.filter((value) => typesTake(types, value));
      if ((out.enum as unknown[]).length === 0)
        return this.fail(path, 'has an enum none of whose values its type takes');
    }
    if (typeof out.pattern === 'string' && hasRegexLookaround(out.pattern)) {
      moved.push(['pattern', `pattern: ${JSON.stringify(out.pattern)}`]);
      delete out.pattern;
    }
    if (typeof schema.format === 'string') {
      if (OPENAI_STRICT_FORMATS.has(schema.format)) out.format = schema.format;
      else moved.push(['format', `format: ${schema.format}`]);
    }
    // Before the children: a node is named before the nodes below it.
    if (moved.length > 0)
      this.moved.push(
        movedKeywordsWarning(
          path,
          moved.map(([keyword]) => keyword),
          'OpenAI strict mode',
        ),
      );
    const isObject = types.includes('object') || (types.length === 0 && isRawSchema(schema.properties));
    if (isObject) this.object(schema, out, path);
    if (types.includes('array')) out.items = this.node(schema.items, childPointer(path, 'items'), true);
    if (Array.isArray(schema.anyOf))
      out.anyOf = withDistinctFirstKeys(schema.anyOf.map((m, i) => this.node(m, childPointer(path, 'anyOf', i), true)));
    if (types.length > 0) out.type = types.length === 1 ? types[0] : types;
    else if (isObject) out.type = 'object';
    else if (out.anyOf === undefined && out.enum === undefined && out.const === undefined)
      return this.fail(path, 'accepts a value of any type');
    if (moved.length > 0) {
      const notes = moved.map(([, note]) => note).join('; ');
      out.description = [out.description, `(${notes})`].filter((d) => typeof d === 'string').join(' ');
    }
    return required ? out : withNull(out);
  }

  /** `allOf` of objects as one object (properties and required united), or undefined when a member is no object. */
  private mergedObjects(schema: RawSchema, members: unknown[]): RawSchema | undefined {
    const { allOf: _allOf, ...own } = schema;
    let out: RawSchema = own;
    for (const member of members) {
      let part = member;
      if (isRawSchema(part) && typeof part.$ref === 'string') {
        const target = this.refs.resolve(part.$ref);
        if (!isRawSchema(target) || this.expanding.has(target)) return undefined;
        const { $ref: _ref, ...siblings } = part;
        part = withSiblings(target, siblings);
      }
      if (!isRawSchema(part) || part.allOf !== undefined || part.anyOf !== undefined || part.oneOf !== undefined)
        return undefined;
      const types = declaredTypes(part);
      if (
        !(types.length === 0
          ? isRawSchema(part.properties) || Array.isArray(part.required)
          : types.length === 1 && types[0] === 'object')
      )
        return undefined;
      const { description: _d, ...rest } = part;
      out = withSiblings(
        { properties: {}, ...out },
        { ...rest, properties: isRawSchema(part.properties) ? part.properties : {} },
      );
    }
    return { ...out, type: 'object' };
  }

  /** A ref back into a schema being expanded stays a ref: to the root, or to a definition emitted under `$defs`. */
  private recursiveRef(ref: string, target: RawSchema, path: string, required: boolean): RawSchema {
    const token = DEFINITION_REF.exec(ref)?.[1];
    if (ref !== '#' && token === undefined)
      return this.fail(path, `is recursive through ${ref}, which strict mode cannot point to`);
    const out = { $ref: token === undefined ? '#' : definitionRef(this.definitionName(token, target)) };
    return required ? out : { anyOf: [out, { type: 'null' }] };
  }

  /**
   * The output `$defs` key of the definition `target`, which a ref names by the pointer token `token`: the name it
   * stands for (`Tree%3Cstring%3E` is `Tree<string>`, `a~1b` is `a/b`), one per definition (a `definitions/N` and a
   * `$defs/N` that differ get `N` and `N_2`).
   */
  private definitionName(token: string, target: RawSchema): string {
    const known = this.definitionNames.get(target);
    if (known !== undefined) return known;
    const taken = new Set(this.definitionNames.values());
    const base = pointerTokenText(decodedOr(token));
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
    this.definitionNames.set(target, name);
    this.pending.set(name, target);
    return name;
  }

  /** The definitions recursive refs point to, converted with the same rules (each may add others). */
  definitions(): Record<string, RawSchema> {
    const done: Record<string, RawSchema> = {};
    for (let next = this.nextPending(done); next; next = this.nextPending(done)) {
      const [name, target] = next;
      this.expanding.add(target);
      try {
        done[name] = this.node(target, childPointer('#', '$defs', name), true);
      } finally {
        this.expanding.delete(target);
      }
    }
    return done;
  }

  private nextPending(done: Record<string, RawSchema>): [string, RawSchema] | undefined {
    for (const entry of this.pending) if (!Object.hasOwn(done, entry[0])) return entry;
    return undefined;
  }

  /**
   * Strict mode closes every object, so the model could never send the keys an object allows beside its properties
   * (`additionalProperties`, `patternProperties`, `unevaluatedProperties`): such an object is a map it cannot express.
   */
  private object(schema: RawSchema, out: RawSchema, path: string): void {
    const properties = isRawSchema(schema.properties) ? schema.properties : {};
    const extra = schema.additionalProperties;
    const patterns = schema.patternProperties;
    const otherKeys = [
      extra !== undefined && extra !== false && 'additionalProperties',
      isRawSchema(patterns) && Object.keys(patterns).length > 0 && 'patternProperties',
      schema.unevaluatedProperties !== undefined && schema.unevaluatedProperties !== false && 'unevaluatedProperties',
    ].filter((key): key is string => typeof key === 'string');
    if (otherKeys.length > 0)
      return void this.fail(path, `is a map (${otherKeys.join(', ')}), which strict mode cannot express`);
    if (Object.keys(properties).length === 0 && extra === undefined && path !== '#') {
      return void this.fail(path, 'is a free-form object (no properties), which strict mode cannot express');
    }
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    out.properties = Object.fromEntries(
      Object.entries(properties).map(([name, child]) => [
        name,
        this.node(child, childPointer(path, 'properties', name), required.has(name)),
      ]),
    );
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }

  /** `path`: the node's JSON pointer; `problem`: what it is that strict mode cannot take ("is a map (...)"). */
  private fail(path: string, problem: string): RawSchema {
    this.problems.push(`${path}: strict: false because it ${problem}`);
    return {};
  }
}

/**
 * `members` (our own nodes) with each object whose first property another object of the union has first too (the same
 * name and schema, which strict mode refuses) reordered to start with a property no other object has as it is, and
 * `required` in the same order (strict mode lists every property there). An object with no such property is left as it
 * is: the strict validator then names the union, and the tool is emitted with `strict: false`.
 */
function withDistinctFirstKeys(members: RawSchema[]): RawSchema[] {
  const objects = members.filter((m) => isRawSchema(m.properties) && Object.keys(m.properties).length > 0);
  const signatures = objects.map(
    (m) => new Set(Object.entries(m.properties as RawSchema).map(([name, s]) => propertySignature(name, s))),
  );
  const firsts = objects.map((m) => propertySignature(...Object.entries(m.properties as RawSchema)[0]));
  objects.forEach((member, i) => {
    if (!firsts.some((first, j) => j !== i && first === firsts[i])) return;
    const entries = Object.entries(member.properties as RawSchema);
    const own = entries.find(([name, s]) =>
      signatures.every((set, j) => j === i || !set.has(propertySignature(name, s))),
    );
    if (!own) return;
    // fromEntries defines own keys, so a property named "__proto__" stays a property.
    member.properties = Object.fromEntries([own, ...entries.filter((entry) => entry !== own)]);
    member.required = Object.keys(member.properties as RawSchema);
  });
  return members;
}

/** A ref target with the keywords beside the `$ref`: siblings win, but properties and required are united. */
function withSiblings(target: RawSchema, siblings: RawSchema): RawSchema {
  const out = { ...target, ...siblings };
  if (isRawSchema(target.properties) && isRawSchema(siblings.properties))
    out.properties = { ...target.properties, ...siblings.properties };
  if (Array.isArray(target.required) && Array.isArray(siblings.required))
    out.required = [...new Set([...(target.required as unknown[]), ...(siblings.required as unknown[])])];
  else if (Array.isArray(target.required) && siblings.required === undefined) out.required = target.required;
  return out;
}

/** `schema` that also accepts null: how strict mode writes an optional property. */
function withNull(schema: RawSchema): RawSchema {
  if (allowsNull(schema)) return schema;
  const out = { ...schema };
  if (Array.isArray(out.anyOf)) {
    out.anyOf = [...(out.anyOf as unknown[]), { type: 'null' }];
    return out;
  }
  if (out.const !== undefined)
    return {
      anyOf: [{ const: out.const }, { type: 'null' }],
      ...(out.description ? { description: out.description } : {}),
    };
  if (out.type !== undefined) out.type = [...(Array.isArray(out.type) ? (out.type as unknown[]) : [out.type]), 'null'];
  if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
  return out;
}

function allowsNull(schema: RawSchema): boolean {
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  if (Array.isArray(schema.anyOf)) return schema.anyOf.some((m) => isRawSchema(m) && allowsNull(m));
  if (schema.const !== undefined) return schema.const === null;
  return declaredTypes(schema).includes('null');
}
