import RE2 from 're2';
import type { RiskHint, RiskVerdict } from './risk.types';
import { evaluateRiskReadings, RiskReading } from './risk-readings';
import { mayBeEvaluated } from './risk-text.evaluator';
import { shellJoin } from './risk-shell-word';

type Schema = Record<string, unknown>;

/** Texts up to this long are pre-checked during the walk (cheap: microseconds), longer ones where they are read. */
const PRECHECKED_WHILE_WALKING = 256;

/** Deeper argument trees are reported as opaque instead of being walked. */
const MAX_DEPTH = 64;

/**
 * Sibling fields that together form one command line (names compared case-insensitively):
 * `{command: "rm", args: ["-rf", "/"]}`, `{cmd: "rm", args: "-rf /"}`, `{program: "chmod", flags: "-R 777", path: "/"}`.
 * Argument strings are shell text as written; array items and operand fields are quoted as single words.
 */
const PROGRAM_FIELDS = ['command', 'cmd', 'program', 'executable', 'exe', 'bin', 'binary'];
const ARGV_FIELDS = [
  'subcommand',
  'sub_command',
  'subcmd',
  'args',
  'argv',
  'arguments',
  'params',
  'flags',
  'options',
  'opts',
  'command_args',
  'cmd_args',
];
const OPERAND_FIELDS = [
  'path',
  'paths',
  'target',
  'targets',
  'file',
  'files',
  'dir',
  'directory',
  'dest',
  'destination',
];

/**
 * Decides whether tool arguments are destructive: every string at any depth is evaluated, and arrays
 * of strings are also read as an argv (`["rm", "-rf", "/"]`). A JSON-schema property with
 * `"x-risk": "shell" | "sql"` (or `"format": "shell" | "sql"`) fixes how its strings are read (an `sql` one is read
 * as shell too where it is not all SQL); the hint applies to everything below that property. Each match carries the argument path (`steps[1].sql`).
 */
export function evaluateRiskArguments(args: unknown, schema?: Record<string, unknown>): RiskVerdict {
  return evaluateRiskReadings(collectRiskReadings(args, schema));
}

/**
 * The texts {@link evaluateRiskArguments} reads in `args`, with their hints and paths, in order: the walk of the
 * arguments (schema hints, argv arrays, command lines split over fields), without reading any text yet.
 */
export function collectRiskReadings(args: unknown, schema?: Record<string, unknown>): RiskReading[] {
  const root = unwrapSchema(schema);
  const walker = new ArgumentsWalker(root);
  walker.walk(args, root, undefined, 'auto', 0);
  return walker.readings;
}

class ArgumentsWalker {
  readonly readings: RiskReading[] = [];
  private readonly seen = new WeakSet<object>();

  constructor(private readonly root: Schema | undefined) {}

  walk(value: unknown, schema: Schema | undefined, path: ArgumentPath, inherited: RiskHint, depth: number): void {
    const resolved = this.resolve(schema);
    const hint = hintOf(resolved) ?? inherited;
    if (typeof value === 'string') {
      this.text(value, hint, path);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    if (depth >= MAX_DEPTH) {
      const match = `arguments nested deeper than ${MAX_DEPTH} levels`;
      this.readings.push({ rule: 'opaque', match, path: pathText(path) });
      return;
    }
    if (this.seen.has(value)) return;
    this.seen.add(value);
    if (Array.isArray(value)) {
      value.forEach((item, i) => this.walk(item, itemSchema(resolved, i), { parent: path, step: i }, hint, depth + 1));
      if (value.length > 1 && value.every((v) => typeof v === 'string')) this.text(shellJoin(value), 'shell', path);
      return;
    }
    const record = value as Record<string, unknown>;
    for (const [key, child] of Object.entries(record)) {
      this.walk(
        child,
        propertySchema(resolved, key, (s) => this.resolve(s)),
        { parent: path, step: key },
        hint,
        depth + 1,
      );
    }
    // Read whatever the schema hints: a command split over fields runs the same under an `sql` hint.
    this.programWithArgs(record, path);
  }

  private programWithArgs(record: Record<string, unknown>, path: ArgumentPath): void {
    const keys = new Map(Object.keys(record).map((key) => [key.toLowerCase(), key]));
    const program = PROGRAM_FIELDS.map((f) => keys.get(f)).find(
      (key) => key !== undefined && typeof record[key] === 'string',
    );
    if (program === undefined) return;
    const line = [record[program] as string];
    let first: string | undefined;
    for (const [fields, asText] of [
      [ARGV_FIELDS, true],
      [OPERAND_FIELDS, false],
    ] as const) {
      for (const field of fields) {
        const key = keys.get(field);
        const value = key === undefined ? undefined : record[key];
        if (typeof value === 'string') line.push(asText ? value : shellJoin([value]));
        else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) line.push(shellJoin(value));
        else continue;
        first ??= key;
      }
    }
    if (first !== undefined) this.text(line.join(' '), 'shell', { parent: path, step: first });
  }

  private text(text: string, hint: RiskHint, path: ArgumentPath): void {
    // A short text the pre-check clears is skipped here, as the evaluation would skip it: arguments of millions of
    // small strings then send the worker thread only what it has to read (the check is cheap on short texts only).
    if (text.length <= PRECHECKED_WHILE_WALKING && !mayBeEvaluated(text)) return;
    this.readings.push({ text, hint, path: pathText(path) });
  }

  /** Follows a local `$ref` (`#/$defs/x`, `#/definitions/x`). */
  private resolve(schema: Schema | undefined): Schema | undefined {
    let current = schema;
    for (let hops = 0; current && typeof current.$ref === 'string' && hops < 16; hops++) {
      const ref = current.$ref;
      if (!ref.startsWith('#/')) return current;
      let target: unknown = this.root;
      for (const part of ref.slice(2).split('/'))
        target = isSchema(target) ? target[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
      current = isSchema(target) ? target : undefined;
    }
    return current;
  }
}

function unwrapSchema(schema: Schema | undefined): Schema | undefined {
  if (!isSchema(schema)) return undefined;
  if ('properties' in schema || 'type' in schema) return schema;
  const inner = schema.inputSchema ?? schema.input_schema ?? schema.parameters;
  return isSchema(inner) ? inner : schema;
}

function hintOf(schema: Schema | undefined): RiskHint | undefined {
  const value = schema?.['x-risk'] ?? schema?.format;
  return value === 'shell' || value === 'sql' ? value : undefined;
}

function propertySchema(
  schema: Schema | undefined,
  key: string,
  resolve: (s: Schema | undefined) => Schema | undefined,
): Schema | undefined {
  if (!schema) return undefined;
  const properties = schema.properties;
  if (isSchema(properties) && isSchema(properties[key])) return properties[key];
  if (isSchema(schema.patternProperties)) {
    for (const [pattern, sub] of Object.entries(schema.patternProperties)) {
      if (isSchema(sub) && safeTest(pattern, key)) return sub;
    }
  }
  if (isSchema(schema.additionalProperties)) return schema.additionalProperties;
  for (const combinator of ['allOf', 'anyOf', 'oneOf']) {
    const branches = schema[combinator];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      const found = propertySchema(resolve(isSchema(branch) ? branch : undefined), key, resolve);
      if (found) return found;
    }
  }
  return undefined;
}

function itemSchema(schema: Schema | undefined, index: number): Schema | undefined {
  if (!schema) return undefined;
  const prefix = Array.isArray(schema.prefixItems)
    ? schema.prefixItems
    : Array.isArray(schema.items)
      ? schema.items
      : undefined;
  if (prefix && isSchema(prefix[index])) return prefix[index];
  if (isSchema(schema.items)) return schema.items;
  return isSchema(schema.additionalItems) ? schema.additionalItems : undefined;
}

/**
 * Where a value sits in the arguments, as the walk met it: written out (`steps[1].sql`) only for the values read, so
 * that walking millions of values costs no string per value.
 */
type ArgumentPath = { parent: ArgumentPath; step: string | number } | undefined;

function pathText(path: ArgumentPath): string | undefined {
  if (path === undefined) return undefined;
  const parent = pathText(path.parent);
  return typeof path.step === 'number' ? `${parent ?? ''}[${path.step}]` : joinPath(parent, path.step);
}

function joinPath(path: string | undefined, key: string): string {
  const segment = /^[A-Za-z_$][\w$-]*$/.test(key) ? key : JSON.stringify(key);
  if (path === undefined) return segment.startsWith('"') ? `[${segment}]` : segment;
  return segment.startsWith('"') ? `${path}[${segment}]` : `${path}.${segment}`;
}

/** patternProperties regexes come from admins and MCP servers: run them on RE2 (linear time), compiled once. */
const keyPatterns = new Map<string, RE2 | null>();

function safeTest(pattern: string, key: string): boolean {
  let re = keyPatterns.get(pattern);
  if (re === undefined) {
    try {
      re = new RE2(pattern, 'u');
    } catch {
      re = null;
    }
    if (keyPatterns.size >= 1_000) keyPatterns.clear();
    keyPatterns.set(pattern, re);
  }
  return re !== null && re.test(key);
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
