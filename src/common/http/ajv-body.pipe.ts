import { SAFE_LINE_PATTERN, UNSAFE_LINE_PROBLEM } from '../safe-text';
import { PipeTransform } from '@nestjs/common';
import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import { FieldProblem, UNKNOWN_FIELD_PROBLEM, validationFailed } from '../errors/validation';
import { ONLY_WITH_KEYWORD } from './only-with.keyword';

const ajv = new Ajv({ allErrors: true, strict: false }).addKeyword(ONLY_WITH_KEYWORD);

/**
 * Validates a request body against a JSON Schema compiled once (for the per-call endpoints `act`, `execute` and
 * tool-specs, where class-validator + class-transformer cost about 0.2 ms a request). Problems are reported
 * exactly like the global ValidationPipe's: 400 VALIDATION_FAILED with `details.fields`.
 * Use with a body parameter typed as an interface, so the global pipe leaves it alone.
 */
export class AjvBodyPipe<T> implements PipeTransform<unknown, T> {
  private readonly validate: ValidateFunction;

  constructor(schema: Record<string, unknown>) {
    this.validate = ajv.compile(schema);
  }

  transform(value: unknown): T {
    if (this.validate(value)) return value as T;
    throw validationFailed(toFieldProblems(this.validate.errors ?? []));
  }
}

/** An error about an array item itself (`items/<keyword>`, not a property inside it). */
const ITEM_ERROR = /\/items\/[^/]+$/;
const OBJECT_KEYWORDS = new Set(['required', 'additionalProperties']);
const WITH_ARTICLE: Record<string, string> = { object: 'an object', array: 'an array', integer: 'an integer' };

/** "an object or a string": the types an `anyOf` of types accepts, as its error names them. */
function typesInWords(types: string[]): string {
  const words = types.map((t) => WITH_ARTICLE[t] ?? (t === 'null' ? 'null' : `a ${t}`));
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words.at(-1)}` : words[0];
}

function toFieldProblems(errors: ErrorObject[]): FieldProblem[] {
  const byField = new Map<string, string[]>();
  const add = (field: string, problem: string) => {
    const problems = byField.get(field) ?? [];
    if (!problems.includes(problem)) byField.set(field, [...problems, problem]);
  };
  /** The types the branches of an `anyOf` wanted, by the value's path: its error names them. */
  const anyOfTypes = new Map<string, string[]>();
  for (const e of errors) {
    const path = e.instancePath.slice(1).split('/');
    // A bad value in an array is named on the array, as class-validator's `each` did: `permissions`, not
    // `permissions.3` (a missing or extra property of an object item keeps its index: `toolCalls.0.id`).
    if (ITEM_ERROR.test(e.schemaPath) && !OBJECT_KEYWORDS.has(e.keyword) && /^\d+$/.test(path.at(-1)!)) path.pop();
    const base = path.join('.');
    const join = (child: string) => (base ? `${base}.${child}` : child);
    if (e.keyword === 'required') add(join((e.params as { missingProperty: string }).missingProperty), 'is required');
    else if (e.keyword === 'additionalProperties')
      add(join((e.params as { additionalProperty: string }).additionalProperty), UNKNOWN_FIELD_PROBLEM);
    else if (e.keyword === 'type' && e.schemaPath.includes('anyOf')) {
      // the anyOf error below says it once, naming every type
      anyOfTypes.set(e.instancePath, [...(anyOfTypes.get(e.instancePath) ?? []), String(e.params.type)]);
      continue;
    } else if (e.keyword === 'anyOf' && anyOfTypes.has(e.instancePath))
      add(base || '(body)', `must be ${typesInWords(anyOfTypes.get(e.instancePath)!)}`);
    else if (e.keyword === 'pattern' && (e.params as { pattern: string }).pattern === SAFE_LINE_PATTERN)
      add(base, UNSAFE_LINE_PROBLEM);
    else if (e.keyword === 'enum')
      add(base || '(body)', `must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`);
    else add(base || '(body)', e.message ?? 'is invalid');
  }
  return [...byField].map(([field, problems]) => ({ field, problems }));
}
