import { RateLimitBlocks } from './rate-limit-blocks';

describe('RateLimitBlocks', () => {
  it('keeps a refusal for the seconds its Retry-After named, in whole seconds left, then forgets it', () => {
    const blocks = new RateLimitBlocks();
    blocks.block('key:a', 2, 10_000);
    expect(blocks.secondsLeft('key:a', 10_000)).toBe(2);
    expect(blocks.secondsLeft('key:a', 11_500)).toBe(1);
    expect(blocks.secondsLeft('key:b', 11_500)).toBe(0);
    expect(blocks.secondsLeft('key:a', 12_000)).toBe(0);
    // Forgotten, not only expired: a clock that went back does not revive it.
    expect(blocks.secondsLeft('key:a', 10_000)).toBe(0);
  });
});
