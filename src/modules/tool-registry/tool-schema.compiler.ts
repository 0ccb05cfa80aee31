import { Injectable } from '@nestjs/common';
import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import { LRUCache } from 'lru-cache';
import type { JsonSchema, ToolDescriptor } from './tool-registry.types';
import { linearRegExp } from './tool-schema.regexp';
import { addLinearFormats } from './tool-schema.formats';
import { jsonValueNestsDeeperThan, MAX_JSON_DEPTH, tooDeepProblem } from '@app/common/json-depth';
import { ArgumentsReviver, compileArgumentsReviver } from './tool-arguments.reviver';
import { inPlaceRefLoop } from './tool-schema.ref-loops';
import { pathOfProtoKey } from '@app/common/own-member';
import type { ModelFormat } from '@app/modules/agent-config/formats/model-formats';

/** Largest accepted `parameters` schema: bytes of its JSON in UTF-8 (it is stored in one TEXT column: 64 KB on MySQL). */
export const MAX_SCHEMA_BYTES = 60_000;

/** The JSON Schema dialects a `$schema` may name (no `$schema` means draft-07). */
const DIALECTS = {
  'draft-07': ['http://json-schema.org/draft-07/schema'],
  '2019-09': ['https://json-schema.org/draft/2019-09/schema'],
  '2020-12': ['https://json-schema.org/draft/2020-12/schema'],
} as const;
type Dialect = keyof typeof DIALECTS;
const SUPPORTED_DIALECTS_TEXT = Object.values(DIALECTS)
  .map((urls) => urls[0])
  .join(', ');

type AjvLike = Pick<Ajv, 'compile' | 'validateSchema' | 'errorsText' | 'removeSchema'> & {
  errors?: ErrorObject[] | null;
};

function makeAjv<T extends Ajv>(Ctor: new (opts: object) => T): T {
  // strict: false — tool schemas come from MCP servers and decorators with vendor keywords (x-*) that are harmless.
  // code.regExp: `pattern` and `patternProperties` run on RE2 (linear time), never on V8's backtracking engine.
  const ajv = new Ctor({ allErrors: true, strict: false, validateFormats: true, code: { regExp: linearRegExp } });
  addLinearFormats(ajv);
  return ajv;
}

/**
 * Where `value` holds a number JSON text cannot write (JSON.parse reads 1e400 as Infinity; JSON.stringify writes it as
 * null), as `$.a.b` from `path`; null when it holds none. A schema must not hold one: stored and emitted, `maximum`
 * would be null, and every provider refuses that schema (and the whole request with it).
 */
function pathOfNonFiniteNumber(value: unknown, path: string): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : path;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, child] of Object.entries(value)) {
    const found = pathOfNonFiniteNumber(child, Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`);
    if (found !== null) return found;
  }
  return null;
}

/**
 * Checks tool definitions and validates call arguments with ajv. Validators are compiled once per
 * (tool id, version) and cached; the hot path never compiles.
 */
@Injectable()
export class ToolSchemaCompiler {
  private readonly draft07 = makeAjv(Ajv);
  private readonly draft2019 = makeAjv(Ajv2019 as unknown as new (o: object) => Ajv);
  private readonly draft2020 = makeAjv(Ajv2020 as unknown as new (o: object) => Ajv);
  private readonly validators = new LRUCache<string, ValidateFunction>({ max: 20_000 });
  /** Per tool version; `false` when the schema needs no reviving (LRUCache cannot hold null). */
  private readonly revivers = new LRUCache<string, ArgumentsReviver | false>({ max: 20_000 });

  /** Problems that make `schema` unusable as a tool's parameters (empty when it is fine). */
  checkDefinition(schema: unknown): string[] {
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return ['must be a JSON Schema object'];
    const s = schema as JsonSchema;
    // Before anything recursive (JSON.stringify included) walks it.
    if (jsonValueNestsDeeperThan(s, MAX_JSON_DEPTH)) return [tooDeepProblem(MAX_JSON_DEPTH)];
    const protoAt = pathOfProtoKey(s, '$');
    if (protoAt !== null)
      return [
        `${protoAt} holds a key named "__proto__": the model formats and many JSON tools copy objects by assignment, which drops or misreads it; rename it`,
      ];
    const infiniteAt = pathOfNonFiniteNumber(s, '$');
    if (infiniteAt !== null)
      return [
        `${infiniteAt} is a number too large for JSON (such as 1e400, read as Infinity): it would be stored and sent to models as null, which no JSON Schema takes there; write a finite number`,
      ];
    const problems: string[] = [];
    if (Buffer.byteLength(JSON.stringify(s)) > MAX_SCHEMA_BYTES)
      problems.push(`is larger than ${MAX_SCHEMA_BYTES} bytes as JSON in UTF-8`);
    if (s.type !== 'object')
      problems.push('must have "type": "object" at the root (models call tools with a JSON object)');
    if (
      s.properties !== undefined &&
      (typeof s.properties !== 'object' || s.properties === null || Array.isArray(s.properties))
    ) {
      problems.push('"properties" must be an object');
    }
    const dialect = dialectOf(s.$schema);
    if (dialect === undefined) {
      problems.push(
        `"$schema" ${JSON.stringify(s.$schema)} is not a supported dialect: use one of ${SUPPORTED_DIALECTS_TEXT} (draft-07 when omitted)`,
      );
    }
    if (problems.length) return problems;
    const loop = inPlaceRefLoop(s);
    if (loop !== null) return [refLoopProblem(loop)];
    const ajv = this.ajvFor(s);
    if (!ajv.validateSchema(s)) {
      return (ajv.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`.trim());
    }
    try {
      // A loop the walk above cannot see (through $recursiveRef, $dynamicRef or a $ref by $id) overflows the stack
      // on every value: the empty object shows it.
      if (overflowsOn(ajv.compile(s), {})) return [ENDLESS_SCHEMA_PROBLEM];
    } catch (err) {
      // ajv encodes each name into a JSON pointer (encodeURIComponent), which throws on half of a surrogate pair.
      if (err instanceof URIError)
        return [
          'cannot be compiled: a property name (or another name in the schema) holds half of a UTF-16 surrogate pair, a character cut in two (often an emoji); send whole characters',
        ];
      return [`cannot be compiled: ${(err as Error).message}`];
    } finally {
      // ajv keeps every compiled schema in its own cache; a check must not grow it.
      ajv.removeSchema(s);
    }
    return [];
  }

  /** Violations of `args` against the tool's schema, each naming the field (empty when valid). */
  validateArguments(tool: Pick<ToolDescriptor, 'id' | 'version' | 'parameters'>, args: unknown): string[] {
    const validate = this.validatorFor(tool);
    try {
      if (validate(args)) return [];
    } catch (err) {
      // A stored schema that recurses in place only for some values (or was stored before the check above).
      if (err instanceof RangeError)
        return [`the tool's parameters schema ${ENDLESS_SCHEMA_PROBLEM}; an admin must fix it`];
      throw err;
    }
    return (validate.errors ?? []).map(describeViolation);
  }

  /**
   * The arguments with what the emitted specs asked of the model mapped back to what the tool's schema
   * takes (see {@link compileArgumentsReviver}); the same object when nothing applies. Run before
   * {@link validateArguments}. `format`: the format of the spec the model was given, when the caller knows it.
   */
  reviveArguments(
    tool: Pick<ToolDescriptor, 'id' | 'version' | 'parameters'>,
    args: Record<string, unknown>,
    format?: ModelFormat,
  ): Record<string, unknown> {
    const key = `${tool.id}@${tool.version}`;
    let reviver = this.revivers.get(key);
    if (reviver === undefined) {
      reviver = compileArgumentsReviver(tool.parameters) ?? false;
      this.revivers.set(key, reviver);
    }
    return reviver ? reviver(args, format) : args;
  }

  private validatorFor(tool: Pick<ToolDescriptor, 'id' | 'version' | 'parameters'>): ValidateFunction {
    const key = `${tool.id}@${tool.version}`;
    let validate = this.validators.get(key);
    if (!validate) {
      const ajv = this.ajvFor(tool.parameters);
      const loop = inPlaceRefLoop(tool.parameters);
      try {
        // A row stored before this check: ajv would compile it, then overflow the stack on every call.
        if (loop !== null) throw new Error(refLoopProblem(loop));
        validate = ajv.compile(tool.parameters);
      } catch (err) {
        // A row stored before today's checks (e.g. a lookahead pattern): the call is refused, the process stays up.
        validate = unusableSchema(
          `the tool's parameters schema cannot be used (${(err as Error).message}); an admin must fix the tool's parameters`,
        );
      } finally {
        // The LRU above is the one cache: drop ajv's copy so evicted versions are really freed.
        ajv.removeSchema(tool.parameters);
      }
      this.validators.set(key, validate);
    }
    return validate;
  }

  private ajvFor(schema: JsonSchema): AjvLike {
    const dialect = dialectOf(schema.$schema);
    if (dialect === '2020-12') return this.draft2020;
    if (dialect === '2019-09') return this.draft2019;
    return this.draft07;
  }
}

/** The dialect a `$schema` value names (absent: draft-07), or undefined for one ajv here cannot check. */
function dialectOf(uri: unknown): Dialect | undefined {
  if (uri === undefined) return 'draft-07';
  if (typeof uri !== 'string') return undefined;
  const bare = uri.endsWith('#') ? uri.slice(0, -1) : uri;
  return (Object.keys(DIALECTS) as Dialect[]).find((d) => (DIALECTS[d] as readonly string[]).includes(bare));
}

function refLoopProblem(ref: string): string {
  return `$ref ${JSON.stringify(ref)} refers back to itself without descending into the value (e.g. allOf: [{"$ref": "#"}]), so checking any arguments against it would never end; make the recursion go through properties or items`;
}

const ENDLESS_SCHEMA_PROBLEM =
  'refers back to itself without descending into the value (through $ref, $recursiveRef or $dynamicRef), so checking any arguments against it would never end; make the recursion go through properties or items';

/** Whether checking `value` recurses until the stack overflows. */
function overflowsOn(validate: ValidateFunction, value: unknown): boolean {
  try {
    validate(value);
    return false;
  } catch (err) {
    if (err instanceof RangeError) return true;
    throw err;
  }
}

/** A validator that refuses every call with one problem (for a stored schema that no longer compiles). */
function unusableSchema(problem: string): ValidateFunction {
  const validate = (() => false) as unknown as ValidateFunction;
  validate.errors = [{ keyword: 'schema', instancePath: '', schemaPath: '#', params: {}, message: problem }];
  return validate;
}

function describeViolation(e: ErrorObject): string {
  const field = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '(arguments)';
  switch (e.keyword) {
    case 'required':
      return `${e.instancePath ? field + '.' : ''}${(e.params as { missingProperty: string }).missingProperty}: is required`;
    case 'additionalProperties':
      return `${e.instancePath ? field + '.' : ''}${(e.params as { additionalProperty: string }).additionalProperty}: is not an allowed property`;
    case 'enum':
      return `${field}: must be one of ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)}`;
    default:
      return `${field}: ${e.message ?? 'is invalid'}`;
  }
}
