import { ThrottlerStorageService } from '@nestjs/throttler';
import { RateLimitBlocks } from './rate-limit-blocks';

const MINUTE_MS = 60_000;

describe('RateLimitBlocks', () => {
  it('keeps a refusal while the Retry-After it named surely lasts, answering the seconds left, then forgets it', () => {
    const blocks = new RateLimitBlocks();
    blocks.block('key:a', 2, 10_000);
    expect(blocks.secondsLeft('key:a', 10_000)).toBe(2);
    expect(blocks.secondsLeft('key:a', 10_900)).toBe(2);
    expect(blocks.secondsLeft('key:b', 10_900)).toBe(0);
    // From here the throttler's block (2 s rounded up) may be over: the guard decides.
    expect(blocks.secondsLeft('key:a', 11_000)).toBe(0);
    // Forgotten, not only expired: a clock that went back does not revive it.
    expect(blocks.secondsLeft('key:a', 10_000)).toBe(0);
  });

  it('forgets the blocks of keys never seen again once they are over, so keys come and go without piling up', () => {
    const blocks = new RateLimitBlocks();
    for (let i = 0; i < 1_000; i++) blocks.block(`key:gone-${i}`, 60, 10_000);
    expect(blocks.size).toBe(1_000);
    // A minute on, another key is refused: the blocks over by then are gone, though no request asked about them.
    blocks.block('key:other', 60, 10_000 + MINUTE_MS);
    expect(blocks.size).toBe(1);
    expect(blocks.secondsLeft('key:other', 10_000 + MINUTE_MS)).toBe(60);
  });

  describe('beside the throttler that refused the key', () => {
    let storage: ThrottlerStorageService;
    const hit = () => storage.increment('key:a', MINUTE_MS, 1, MINUTE_MS, 'default');

    beforeEach(() => {
      jest.useFakeTimers({ now: 1_000_000 });
      storage = new ThrottlerStorageService();
    });

    afterEach(() => {
      storage.onApplicationShutdown();
      jest.useRealTimers();
    });

    it('never refuses a key the throttler lets through again (its Retry-After is whole seconds rounded up)', async () => {
      const blocks = new RateLimitBlocks();
      await hit(); // the limit's one request
      expect((await hit()).isBlocked).toBe(true); // blocked for a minute from here
      jest.advanceTimersByTime(500);
      const refused = await hit();
      expect(refused).toMatchObject({ isBlocked: true, timeToBlockExpire: 60 }); // 59.5 s left, said as 60
      blocks.block('key:a', refused.timeToBlockExpire, Date.now());

      jest.advanceTimersByTime(MINUTE_MS - 400); // the throttler's minute is over; 60 s from the refusal is not
      expect(blocks.secondsLeft('key:a', Date.now())).toBe(0);
      expect((await hit()).isBlocked).toBe(false);
    });
  });
});
