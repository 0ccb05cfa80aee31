import { hash } from 'node:crypto';
import { ANTHROPIC_PROPERTY_KEY_PATTERN } from './anthropic-spec.validator';
import { LONE_SURROGATE } from '@app/common/text/lone-surrogate';

/**
 * Which property names a provider takes as keys as they are: `anthropic`, those matching
 * {@link ANTHROPIC_PROPERTY_KEY_PATTERN}; `json` (OpenAI, its strict mode, Gemini), any name that is valid JSON text,
 * that is one without half a surrogate pair (the spec's JSON text writes every such half as U+FFFD: `a\uD800`,
 * `a\uDC00` and `a\uFFFD` would be one key, the spec would keep one of the properties and the model's argument would go
 * to it). Every name `json` renames, `anthropic` renames too, to the same key.
 */
export type PropertyKeyRule = 'anthropic' | 'json';

/** The names a provider following each rule takes as keys (see {@link PropertyKeyRule}). */
const PROVIDER_TAKES: Readonly<Record<PropertyKeyRule, (name: string) => boolean>> = {
  anthropic: (name) => ANTHROPIC_PROPERTY_KEY_PATTERN.test(name),
  json: (name) => !LONE_SURROGATE.test(name),
};

/**
 * How every renamed key ends (`_` and 8 hex digits). A name that ends so is renamed too, whatever the rule: sent as it
 * is, it could be the key another property's name is sent as (the spec would keep one of them, list it twice in
 * `required`, and the model's argument would go to the other).
 */
const RENAMED_KEY_ENDING = /_[0-9a-f]{8}$/;

/** Why a provider following `rule` is sent another key for `name`, as a warning says it. */
export function sentPropertyKeyReason(name: string, rule: PropertyKeyRule): string {
  return PROVIDER_TAKES[rule](name)
    ? 'the name ends like a renamed key ("_" and 8 hex digits), which another name may be sent as'
    : PROPERTY_KEY_RULE_REASONS[rule];
}

/** Why a provider refuses a name as a key, as a warning says it. */
export const PROPERTY_KEY_RULE_REASONS: Readonly<Record<PropertyKeyRule, string>> = {
  anthropic: `Anthropic refuses property keys outside ${ANTHROPIC_PROPERTY_KEY_PATTERN.source}`,
  json:
    'the name holds half of a UTF-16 surrogate pair, which JSON text writes as U+FFFD like every other such half ' +
    '(the names would be one key)',
};

/** Room for the readable part of a renamed key: 55 characters, `_` and 8 hex digits make Anthropic's 64. */
const READABLE_CHARS = 55;
/** The same for a long key: 31 characters, `_` and 32 hex digits. */
const LONG_READABLE_CHARS = 31;

/**
 * The key a provider following `rule` is sent for a property named `name`: the name itself when the provider takes it
 * and it does not end like a renamed key, else its characters outside `[a-zA-Z0-9_.-]` as `_`, cut to 55, then `_` and
 * 8 hex digits of the name's SHA-256 (a key every provider takes). It depends on the name alone, so the argument
 * reviver maps a key the model sends back without knowing the format. A name holding half a surrogate pair is hashed as
 * its UTF-16 code units: UTF-8 writes every such half as U+FFFD, so `a\uD800`, `a\uDC00` and `a\uFFFD` would share one
 * key. Two names of one object whose keys coincide are sent as {@link sentPropertyKeys} says.
 */
export function sentPropertyKey(name: string, rule: PropertyKeyRule): string {
  if (PROVIDER_TAKES[rule](name) && !RENAMED_KEY_ENDING.test(name)) return name;
  return renamedKey(name, READABLE_CHARS, 8);
}

/**
 * The key of a renamed name whose {@link sentPropertyKey} a sibling shares: 32 hex digits of its hash instead of 8. The
 * 8 coincide for two names in about 2^16 tries, which a schema's author (or an MCP server's) can make; the 32 do not.
 */
export function longPropertyKey(name: string): string {
  return renamedKey(name, LONG_READABLE_CHARS, 32);
}

/**
 * The keys of the property names of one object: each name's {@link sentPropertyKey}, except that names sharing a key get
 * their {@link longPropertyKey} (else the spec would keep one of them, list it twice in `required`, and the model's
 * argument would go to the other). The argument reviver maps both keys of a renamed name back.
 */
export function sentPropertyKeys(names: readonly string[], rule: PropertyKeyRule): Map<string, string> {
  const keys = new Map(names.map((name) => [name, sentPropertyKey(name, rule)]));
  // A long key shared with another name's short key makes that name long too: long keys never coincide.
  for (let shared = sharedKeyNames(keys); shared.length > 0; shared = sharedKeyNames(keys))
    for (const name of shared) keys.set(name, longPropertyKey(name));
  return keys;
}

/** The names whose short key another name has too. */
function sharedKeyNames(keys: ReadonlyMap<string, string>): string[] {
  const count = new Map<string, number>();
  for (const key of keys.values()) count.set(key, (count.get(key) ?? 0) + 1);
  return [...keys].filter(([name, key]) => count.get(key)! > 1 && key !== longPropertyKey(name)).map(([name]) => name);
}

function renamedKey(name: string, readableChars: number, hexDigits: number): string {
  const readable = name.replace(/[^a-zA-Z0-9_.-]/g, '_').slice(0, readableChars);
  const hashed = LONE_SURROGATE.test(name) ? Buffer.from(name, 'utf16le') : name;
  return `${readable}_${hash('sha256', hashed, 'hex').slice(0, hexDigits)}`;
}
