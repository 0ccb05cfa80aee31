import { GeminiSchemaRefResolver } from '@app/modules/agent-config/formats/gemini-schema-ref.resolver';
import { longPropertyKey, sentPropertyKey } from '@app/modules/agent-config/formats/sent-property-key';
import { GEMINI_ROOT_MAP_PROPERTY, rootMapOf } from '@app/modules/agent-config/formats/gemini-root-map';
import type { ModelFormat } from '@app/modules/agent-config/formats/model-formats';
import { jsonTextNestsDeeperThan, MAX_JSON_DEPTH } from '@app/common/json-depth';
import type { JsonSchema } from './tool-registry.types';

type Raw = Record<string, unknown>;

/** What to undo at one schema position; built once per tool version. */
interface RevivePlan {
  /** Optional properties whose schema does not allow null: a strict-mode model sends null for "absent". */
  dropNull: Set<string>;
  properties: Map<string, RevivePlan>;
  items?: RevivePlan;
  /** The position takes objects or arrays but no strings: Gemini sent it as JSON text. */
  parseText: boolean;
  /** The position takes a value of any type: Gemini was told to send it as JSON text, whatever its type. */
  anyValueText?: boolean;
  /** A mixed enum's values by their text: Gemini sent the value as a string. */
  enumByText?: Map<string, unknown>;
  /**
   * Property names by the key a provider was sent for them (see sentPropertyKey): Anthropic's rule renames every name
   * another format renames, to the same key, so its keys are all there are to map back, with each one's long key (sent
   * when siblings share a key, see sentPropertyKeys).
   */
  renamed?: Map<string, string>;
}

/**
 * Undoes, on a model's arguments, what the emitted spec asked of the model and the tool's schema does not take.
 * `format`: the format of the spec the model was given (undefined: not known, any format's answer is read).
 */
export type ArgumentsReviver = (args: Record<string, unknown>, format?: ModelFormat) => Record<string, unknown>;

const isRaw = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const MAX_PLAN_DEPTH = 32;
/** Bound on the plans built for one schema: refs with sibling keywords are planned per use and could double at every level. */
const MAX_PLAN_NODES = 5_000;

/**
 * The reviver for one tool's schema, or `null` when there is nothing to undo (then the hot path skips
 * it). It maps back what the emitters ask of models: `null` for an optional property the schema does not
 * allow null for (OpenAI strict mode) is removed; JSON text where the schema takes an object or an array
 * but no string, the text of a non-string enum value, and the map of a tool whose arguments are a map
 * (Gemini), are parsed back; so is the JSON text of a value of any type, from a model given the Gemini spec only
 * (any other model's text there is a string). Anything else is left
 * for the tool's own schema to judge. The input is not mutated; unchanged parts are shared.
 * The map is the one rewrite whose input the tool's schema also takes as it is (a map whose one key is
 * `arguments_json`), so it is read only from a model given the Gemini spec, or from a caller that did not say which
 * spec its model was given; the others undo what the tool's schema would refuse anyway.
 */
export function compileArgumentsReviver(schema: JsonSchema): ArgumentsReviver | null {
  const refs = new GeminiSchemaRefResolver(schema);
  const plans: PlanCache = Object.assign(new Map<object, RevivePlan | null>(), { built: 0 });
  const plan = planFor(schema, refs, plans, 0);
  const reviver: ArgumentsReviver | null = plan
    ? (args, format) => revive(plan, args, 0, format === 'gemini') as Record<string, unknown>
    : null;
  if (!rootMapOf(schema)) return reviver;
  return (args, format) => {
    const map = format === undefined || format === 'gemini' ? rootMapArguments(args) : args;
    return reviver ? reviver(map) : map;
  };
}

/**
 * The map a Gemini model sent as the JSON text of {@link GEMINI_ROOT_MAP_PROPERTY}, the one property its spec has
 * for a tool whose arguments are a map (or as an object there); other arguments as they are.
 */
function rootMapArguments(args: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(args);
  if (keys.length !== 1 || keys[0] !== GEMINI_ROOT_MAP_PROPERTY) return args;
  const sent = args[GEMINI_ROOT_MAP_PROPERTY];
  const map = typeof sent === 'string' ? parsedText(sent) : sent;
  return isRaw(map) ? map : args;
}

function resolved(schema: unknown, refs: GeminiSchemaRefResolver): Raw | undefined {
  let node = schema;
  for (let hops = 0; isRaw(node) && typeof node.$ref === 'string' && hops < 8; hops++) {
    const target = refs.resolve(node.$ref);
    if (!isRaw(target)) return node;
    const { $ref: _ref, ...siblings } = node;
    node = Object.keys(siblings).length > 0 ? { ...target, ...siblings } : target;
  }
  return isRaw(node) ? node : undefined;
}

type PlanCache = Map<object, RevivePlan | null> & { built: number };

function planFor(schema: unknown, refs: GeminiSchemaRefResolver, plans: PlanCache, depth: number): RevivePlan | null {
  const node = resolved(schema, refs);
  if (!node || depth > MAX_PLAN_DEPTH || plans.built > MAX_PLAN_NODES) return null;
  if (plans.has(node)) return plans.get(node) ?? null;
  plans.built += 1;
  const plan: RevivePlan = { dropNull: new Set(), properties: new Map(), parseText: false };
  plans.set(node, plan); // a recursive ref reuses the plan under construction
  const all = [node, ...(Array.isArray(node.allOf) ? (node.allOf as unknown[]) : [])]
    .map((m) => resolved(m, refs))
    .filter(isRaw);
  for (const member of all) planProperties(plan, member, new Set(stringList(member.required)), refs, plans, depth);
  // A union's members: where a root oneOf's properties live once laid out as one object (with those of a member that
  // is a union in turn, laid out too); a name counts as required only when every alternative requires it.
  const union = unionMembers(node, refs);
  const everywhere = new Set(
    union.length > 0
      ? stringList(union[0].required).filter((n) => union.every((m) => stringList(m.required).includes(n)))
      : [],
  );
  for (const member of union.flatMap((m) => [m, ...nestedUnionMembers(m, refs, 0)]))
    planProperties(plan, member, everywhere, refs, plans, depth);
  plan.parseText = depth > 0 && takesObjectOrArray(node, refs, 0) && !acceptsString(node, refs, 0);
  if (depth > 0 && isAnyValue(node)) plan.anyValueText = true;
  // An array without items: Gemini is given `items` of any value, each sent as JSON text.
  if (typesOf(node).includes('array') && node.items === undefined && node.prefixItems === undefined)
    plan.items ??= ANY_VALUE_PLAN;
  const values = Array.isArray(node.enum) ? node.enum : [];
  const byText = values
    .filter((v) => typeof v !== 'string' && !values.includes(JSON.stringify(v)))
    .map((v) => [JSON.stringify(v), v] as const);
  if (byText.length > 0) plan.enumByText = new Map(byText);
  const useful =
    plan.dropNull.size > 0 ||
    plan.properties.size > 0 ||
    plan.items !== undefined ||
    plan.parseText ||
    plan.anyValueText === true ||
    plan.enumByText !== undefined ||
    plan.renamed !== undefined;
  if (!useful) plans.set(node, null);
  return useful ? plan : null;
}

function planProperties(
  plan: RevivePlan,
  member: Raw,
  required: Set<string>,
  refs: GeminiSchemaRefResolver,
  plans: PlanCache,
  depth: number,
): void {
  for (const [name, child] of Object.entries(isRaw(member.properties) ? member.properties : {})) {
    const sent = sentPropertyKey(name, 'anthropic');
    if (sent !== name) {
      plan.renamed ??= new Map();
      // Its long key too, sent when a sibling shares its key (sentPropertyKeys); a long key wins over a short one.
      if (!plan.renamed.has(sent)) plan.renamed.set(sent, name);
      plan.renamed.set(longPropertyKey(name), name);
    }
    if (!required.has(name) && !acceptsNull(child, refs, 0)) plan.dropNull.add(name);
    const childPlan = planFor(child, refs, plans, depth + 1);
    if (childPlan && !plan.properties.has(name)) plan.properties.set(name, childPlan);
  }
  if (member.items !== undefined && !Array.isArray(member.items) && !plan.items)
    plan.items = planFor(member.items, refs, plans, depth + 1) ?? undefined;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Keywords that give a position a type (Gemini infers one from them); without any, it takes a value of any type. */
const TYPING_KEYWORDS = [
  'type',
  'enum',
  'const',
  'anyOf',
  'oneOf',
  'allOf',
  'properties',
  'required',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
];

function isAnyValue(node: Raw): boolean {
  return TYPING_KEYWORDS.every((key) => node[key] === undefined);
}

const ANY_VALUE_PLAN: RevivePlan = { dropNull: new Set(), properties: new Map(), parseText: false, anyValueText: true };

/** The members of a node's `anyOf` and `oneOf`, refs resolved. */
function unionMembers(node: Raw, refs: GeminiSchemaRefResolver): Raw[] {
  return [
    ...(Array.isArray(node.anyOf) ? (node.anyOf as unknown[]) : []),
    ...(Array.isArray(node.oneOf) ? (node.oneOf as unknown[]) : []),
  ]
    .map((m) => resolved(m, refs))
    .filter(isRaw);
}

function nestedUnionMembers(node: Raw, refs: GeminiSchemaRefResolver, depth: number): Raw[] {
  if (depth > MAX_PLAN_DEPTH) return [];
  return unionMembers(node, refs).flatMap((m) => [m, ...nestedUnionMembers(m, refs, depth + 1)]);
}

/** Whether the position takes an object or an array, itself or through one of its union's alternatives. */
function takesObjectOrArray(node: Raw, refs: GeminiSchemaRefResolver, depth: number): boolean {
  if (depth > MAX_PLAN_DEPTH) return false;
  const types = typesOf(node);
  if (types.includes('object') || types.includes('array')) return true;
  return unionMembers(node, refs).some((m) => takesObjectOrArray(m, refs, depth + 1));
}

function typesOf(node: Raw): string[] {
  if (typeof node.type === 'string') return [node.type];
  return Array.isArray(node.type) ? node.type.filter((t): t is string => typeof t === 'string') : [];
}

/** Whether null is a valid value at this position (a position of any type counts as allowing it). */
function acceptsNull(schema: unknown, refs: GeminiSchemaRefResolver, depth: number): boolean {
  const node = resolved(schema, refs);
  if (!node || depth > MAX_PLAN_DEPTH) return true;
  if (node.nullable === true || node.const === null) return true;
  if (Array.isArray(node.enum)) return node.enum.includes(null);
  const union = [
    ...(Array.isArray(node.anyOf) ? (node.anyOf as unknown[]) : []),
    ...(Array.isArray(node.oneOf) ? (node.oneOf as unknown[]) : []),
  ];
  if (union.length > 0) return union.some((m) => acceptsNull(m, refs, depth + 1));
  const types = typesOf(node);
  return types.length === 0 ? node.const === undefined : types.includes('null');
}

function acceptsString(node: Raw, refs: GeminiSchemaRefResolver, depth: number): boolean {
  if (depth > MAX_PLAN_DEPTH) return true;
  if (Array.isArray(node.enum)) return node.enum.some((v) => typeof v === 'string');
  const union = [
    ...(Array.isArray(node.anyOf) ? (node.anyOf as unknown[]) : []),
    ...(Array.isArray(node.oneOf) ? (node.oneOf as unknown[]) : []),
  ];
  if (
    union.some((m) => {
      const r = resolved(m, refs);
      return !r || acceptsString(r, refs, depth + 1);
    })
  )
    return true;
  const types = typesOf(node);
  return types.length === 0 ? union.length === 0 : types.includes('string');
}

/** `gemini`: the arguments come from a model given the Gemini spec (see {@link RevivePlan.anyValueText}). */
function revive(plan: RevivePlan, value: unknown, depth: number, gemini: boolean): unknown {
  if (depth > MAX_JSON_DEPTH) return value; // bodies are refused deeper than this; a recursive plan must not outrun them
  if (typeof value === 'string') {
    if (plan.enumByText?.has(value)) return plan.enumByText.get(value);
    if (plan.parseText) return parsedText(value) ?? value;
    if (plan.anyValueText && gemini) return parsedValue(value, value);
    return value;
  }
  if (Array.isArray(value)) {
    if (!plan.items) return value;
    let out: unknown[] | undefined;
    value.forEach((item, i) => {
      const next = revive(plan.items!, item, depth + 1, gemini);
      if (next !== item) (out ??= [...(value as unknown[])])[i] = next;
    });
    return out ?? value;
  }
  if (!isRaw(value)) return value;
  let out: Raw | undefined;
  const names = plan.renamed && new ArgumentNames(plan.renamed, value);
  for (const [key, child] of Object.entries(value)) {
    const name = names ? names.of(key) : key;
    if (name !== key) delete (out ??= { ...value })[key];
    if (child === null && plan.dropNull.has(name)) {
      out ??= { ...value };
      delete out[name];
      continue;
    }
    const childPlan = plan.properties.get(name);
    const next = childPlan ? revive(childPlan, child, depth + 1, gemini) : child;
    if (next !== child || name !== key)
      Object.defineProperty((out ??= { ...value }), name, {
        value: next,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return out ?? value;
}

/**
 * The property names the keys of one arguments object stand for. A key the provider was sent in place of a name (see
 * sentPropertyKey) stands for that name, unless the arguments hold the name as itself too: a caller that used the
 * tool's own names. Renamed keys can chain (a name spelled as another's renamed key is renamed too), so a name held
 * may itself stand for another: it is held as itself when the end of its chain is held and renamed from nothing.
 */
class ArgumentNames {
  /** Whether each name met so far is held as itself (every name on one chain shares its end's answer). */
  private readonly held = new Map<string, boolean>();

  constructor(
    private readonly renamed: ReadonlyMap<string, string>,
    private readonly args: Raw,
  ) {}

  of(key: string): string {
    const original = this.renamed.get(key);
    return original !== undefined && !this.heldAsItself(original) ? original : key;
  }

  private heldAsItself(name: string): boolean {
    const chain: string[] = [];
    let current = name;
    let answer: boolean | undefined;
    // At most one step per renamed key: no chain is longer (nor, short of a hash collision, a cycle).
    while (answer === undefined && chain.length <= this.renamed.size) {
      answer = this.held.get(current);
      if (answer !== undefined) break;
      chain.push(current);
      const next = this.renamed.get(current);
      if (!Object.hasOwn(this.args, current)) answer = false;
      else if (next === undefined) answer = true;
      else current = next;
    }
    for (const met of chain) this.held.set(met, answer ?? false);
    return answer ?? false;
  }
}

/** Any JSON value `text` holds (`5`, `"x"`, `{"a": 1}`); `fallback` when it holds none. */
function parsedValue(text: string, fallback: unknown): unknown {
  if (jsonTextNestsDeeperThan(text, MAX_JSON_DEPTH)) return fallback;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return fallback;
  }
}

function parsedText(text: string): object | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  if (jsonTextNestsDeeperThan(trimmed, MAX_JSON_DEPTH)) return undefined; // left as text, for the schema to refuse
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return typeof parsed === 'object' && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}
