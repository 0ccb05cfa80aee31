import { timeOrderedId } from './time-ordered-id';

describe('timeOrderedId', () => {
  it('is a version-7 RFC 9562 UUID whose first 48 bits are the milliseconds', () => {
    const now = Date.UTC(2026, 10, 30, 12, 0, 0, 123);
    const id = timeOrderedId(now);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(now);
  });

  it('sorts by time and never repeats across pool refills', () => {
    const ids = Array.from({ length: 2000 }, (_v, i) => timeOrderedId(1_700_000_000_000 + Math.floor(i / 10)));
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 10; i < ids.length; i += 10) expect(ids[i] > ids[i - 1]).toBe(true);
  });

  it('sorts the ids of one millisecond in the order they were made, in 36 characters', () => {
    const now = Date.now();
    const ids = Array.from({ length: 50 }, () => timeOrderedId(now));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => id.length === 36)).toBe(true);
    expect(timeOrderedId(now + 1) > ids[ids.length - 1]).toBe(true);
  });
});
