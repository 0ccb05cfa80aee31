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

const TAKES_AS_IT_IS: Readonly<Record<PropertyKeyRule, (name: string) => boolean>> = {
  anthropic: (name) => ANTHROPIC_PROPERTY_KEY_PATTERN.test(name),
  json: (name) => !LONE_SURROGATE.test(name),
};

/** Why a provider is sent another key for a name, as a warning says it. */
export const PROPERTY_KEY_RULE_REASONS: Readonly<Record<PropertyKeyRule, string>> = {
  anthropic: `Anthropic refuses property keys outside ${ANTHROPIC_PROPERTY_KEY_PATTERN.source}`,
  json:
    'the name holds half of a UTF-16 surrogate pair, which JSON text writes as U+FFFD like every other such half ' +
    '(the names would be one key)',
};

/** Room for the readable part of a renamed key: 55 characters, `_` and 8 hex digits make Anthropic's 64. */
const READABLE_CHARS = 55;

/**
 * The key a provider following `rule` is sent for a property named `name`: the name itself when the provider takes it,
 * else its characters outside `[a-zA-Z0-9_.-]` as `_`, cut to 55, then `_` and 8 hex digits of the name's SHA-256 (a
 * key every provider takes). It depends on the name alone, so the argument reviver maps a key the model sends back
 * without knowing the siblings or the format, and two names never share a renamed key unless their hashes collide. A
 * name holding half a surrogate pair is hashed as its UTF-16 code units: UTF-8 writes every such half as U+FFFD, so
 * `a\uD800`, `a\uDC00` and `a\uFFFD` would share one key.
 */
export function sentPropertyKey(name: string, rule: PropertyKeyRule): string {
  if (TAKES_AS_IT_IS[rule](name)) return name;
  const readable = name.replace(/[^a-zA-Z0-9_.-]/g, '_').slice(0, READABLE_CHARS);
  const hashed = LONE_SURROGATE.test(name) ? Buffer.from(name, 'utf16le') : name;
  return `${readable}_${createHash('sha256').update(hashed).digest('hex').slice(0, 8)}`;
}
