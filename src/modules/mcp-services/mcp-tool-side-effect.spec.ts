import { sideEffectOf } from './mcp-tool-side-effect';

describe('sideEffectOf', () => {
  it('fails safe to SIDE_EFFECT without annotations, or with hints that are not literally true', () => {
    expect(sideEffectOf(undefined)).toBe('SIDE_EFFECT');
    expect(sideEffectOf({})).toBe('SIDE_EFFECT');
    expect(sideEffectOf({ readOnlyHint: 'true', idempotentHint: 1 })).toBe('SIDE_EFFECT');
    expect(sideEffectOf({ destructiveHint: false })).toBe('SIDE_EFFECT');
  });

  it('maps readOnlyHint to READ_ONLY, whatever the other hints say', () => {
    expect(sideEffectOf({ readOnlyHint: true, destructiveHint: true })).toBe('READ_ONLY');
  });

  it('maps an explicit destructiveHint to HIGH_RISK, even when idempotent', () => {
    expect(sideEffectOf({ destructiveHint: true })).toBe('HIGH_RISK');
    expect(sideEffectOf({ destructiveHint: true, idempotentHint: true })).toBe('HIGH_RISK');
  });

  it('maps idempotentHint to IDEMPOTENT', () => {
    expect(sideEffectOf({ idempotentHint: true })).toBe('IDEMPOTENT');
    expect(sideEffectOf({ idempotentHint: true, destructiveHint: false })).toBe('IDEMPOTENT');
  });
});
