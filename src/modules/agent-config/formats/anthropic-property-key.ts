import { createHash } from 'node:crypto';
import { ANTHROPIC_PROPERTY_KEY_PATTERN } from './anthropic-spec.validator';

/** Room for the readable part of a renamed key: 55 characters, `_` and 8 hex digits make Anthropic's 64. */
const READABLE_CHARS = 55;

/**
 * The key Anthropic is sent for a property named `name`: the name itself when Anthropic accepts it, else its
 * characters outside `[a-zA-Z0-9_.-]` as `_`, cut to 55, then `_` and 8 hex digits of the name's SHA-256. It
 * depends on the name alone, so the argument reviver maps a key the model sends back without knowing the
 * siblings, and two names never share a renamed key unless their hashes collide.
 */
export function anthropicPropertyKey(name: string): string {
  if (ANTHROPIC_PROPERTY_KEY_PATTERN.test(name)) return name;
  const readable = name.replace(/[^a-zA-Z0-9_.-]/g, '_').slice(0, READABLE_CHARS);
  return `${readable}_${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}
