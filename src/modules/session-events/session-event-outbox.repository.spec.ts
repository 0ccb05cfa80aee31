import { keptEventId } from './session-event-outbox.repository';

describe('keptEventId', () => {
  it('sorts the rows kept in one millisecond in the order they were kept, in 36 characters', () => {
    const now = Date.now();
    const ids = Array.from({ length: 50 }, () => keptEventId(now));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => id.length === 36)).toBe(true);
    expect(keptEventId(now + 1) > ids[ids.length - 1]).toBe(true);
  });
});
