import { createHash } from 'node:crypto';
import { ANTHROPIC_PROPERTY_KEY_PATTERN } from './anthropic-spec.validator';
import { LONE_SURROGATE } from './tool-spec-schema.walk';

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

/**
 * The key a provider following `rule` is sent for a property named `name`: the name itself when the provider takes it
 * and it does not end like a renamed key, else its characters outside `[a-zA-Z0-9_.-]` as `_`, cut to 55, then `_` and 8 hex digits of the name's SHA-256 (a
 * key every provider takes). It depends on the name alone, so the argument reviver maps a key the model sends back
 * without knowing the siblings or the format, and two names never share a key unless their hashes collide. A
 * name holding half a surrogate pair is hashed as its UTF-16 code units: UTF-8 writes every such half as U+FFFD, so
 * `a\uD800`, `a\uDC00` and `a\uFFFD` would share one key.
 */
export function sentPropertyKey(name: string, rule: PropertyKeyRule): string {
  if (PROVIDER_TAKES[rule](name) && !RENAMED_KEY_ENDING.test(name)) return name;
  const readable = name.replace(/[^a-zA-Z0-9_.-]/g, '_').slice(0, READABLE_CHARS);
  const hashed = LONE_SURROGATE.test(name) ? Buffer.from(name, 'utf16le') : name;
  return `${readable}_${createHash('sha256').update(hashed).digest('hex').slice(0, 8)}`;
}
