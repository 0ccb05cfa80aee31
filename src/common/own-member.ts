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
