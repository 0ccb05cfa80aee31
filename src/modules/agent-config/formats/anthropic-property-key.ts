import { createHash } from 'node:crypto';
import { ANTHROPIC_PROPERTY_KEY_PATTERN } from './anthropic-spec.validator';
import { LONE_SURROGATE } from './tool-spec-schema.walk';

/** Room for the readable part of a renamed key: 55 characters, `_` and 8 hex digits make Anthropic's 64. */
const READABLE_CHARS = 55;

/**
 * The key Anthropic is sent for a property named `name`: the name itself when Anthropic accepts it, else its
 * characters outside `[a-zA-Z0-9_.-]` as `_`, cut to 55, then `_` and 8 hex digits of the name's SHA-256. It
 * depends on the name alone, so the argument reviver maps a key the model sends back without knowing the
 * siblings, and two names never share a renamed key unless their hashes collide. A name holding half a surrogate
 * pair is hashed as its UTF-16 code units: UTF-8 writes every such half as U+FFFD, so `a\uD800`, `a\uDC00` and
 * `a\uFFFD` would share one key (the spec kept one of the properties, the model's argument went to it).
 */
export function anthropicPropertyKey(name: string): string {
  if (ANTHROPIC_PROPERTY_KEY_PATTERN.test(name)) return name;
  const readable = name.replace(/[^a-zA-Z0-9_.-]/g, '_').slice(0, READABLE_CHARS);
  const hashed = LONE_SURROGATE.test(name) ? Buffer.from(name, 'utf16le') : name;
  return `${readable}_${createHash('sha256').update(hashed).digest('hex').slice(0, 8)}`;
}
