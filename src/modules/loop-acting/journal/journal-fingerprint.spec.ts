import { canonicalJson } from '@app/common/canonical-json';
import { callFingerprint } from './journal-fingerprint';

describe('callFingerprint', () => {
  it('ignores key order at any depth', () => {
    expect(callFingerprint('t', { a: 1, b: { c: 2, d: [1, { e: 1, f: 2 }] } })).toBe(
      callFingerprint('t', { b: { d: [1, { f: 2, e: 1 }], c: 2 }, a: 1 }),
    );
  });
  it('tells different tools, values and array orders apart', () => {
    const base = callFingerprint('t', { a: [1, 2] });
    expect(callFingerprint('u', { a: [1, 2] })).not.toBe(base);
    expect(callFingerprint('t', { a: [2, 1] })).not.toBe(base);
    expect(callFingerprint('t', { a: [1, 2], b: null })).not.toBe(base);
  });
  it('counts a key named __proto__ (an own key of parsed JSON) like any other key', () => {
    const parsed = JSON.parse('{"__proto__":{"x":1},"a":1}') as Record<string, unknown>;
    expect(callFingerprint('t', parsed)).not.toBe(callFingerprint('t', { a: 1 }));
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"x":1},"a":1}');
  });
  it('serializes canonically', () => {
    expect(canonicalJson({ b: 1, a: { d: 1, c: 2 } })).toBe('{"a":{"c":2,"d":1},"b":1}');
  });
});
