/**
 * Sets `key` on `target` as an own data member, whatever its name. A plain assignment of `__proto__` (a key
 * `JSON.parse` keeps as an ordinary member) would replace the target's prototype instead: the member vanished from the
 * copy, so what was shown or hashed was not what was sent.
 */
export function setOwnMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * Where a key named `__proto__` (an own key once `JSON.parse` made it) first occurs in `value`, as `path` followed by
 * `.key` and `[index]` steps; null when none does. Nesting is bounded by the caller (bodies and schemas are
 * depth-checked before anything walks them).
 */
export function pathOfProtoKey(value: unknown, path: string): string | null {
  if (value === null || typeof value !== 'object') return null;
  if (!Array.isArray(value) && Object.hasOwn(value, '__proto__')) return path;
  for (const [key, child] of Object.entries(value)) {
    const found = pathOfProtoKey(child, Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`);
    if (found !== null) return found;
  }
  return null;
}
