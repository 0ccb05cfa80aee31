import { WhileBusyInterval } from './while-busy.interval';

describe('WhileBusyInterval', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs a round every period while busy, and stops its timer once idle', async () => {
    let busy = true;
    let rounds = 0;
    const interval = new WhileBusyInterval(
      100,
      () => busy,
      () => Promise.resolve(void rounds++),
    );
    interval.start();
    interval.start(); // a second start keeps the one timer
    await jest.advanceTimersByTimeAsync(350);
    expect(rounds).toBe(3);
    busy = false;
    await jest.advanceTimersByTimeAsync(100);
    expect(jest.getTimerCount()).toBe(0);
    busy = true;
    interval.start();
    await jest.advanceTimersByTimeAsync(100);
    expect(rounds).toBe(4);
    interval.stop();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('never starts a round while the previous one still runs: slow rounds skip ticks instead of piling up', async () => {
    let started = 0;
    let release = () => undefined as void;
    const interval = new WhileBusyInterval(
      100,
      () => true,
      () => {
        started++;
        return new Promise<void>((resolve) => (release = resolve));
      },
    );
    interval.start();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(started).toBe(1);
    release();
    await jest.advanceTimersByTimeAsync(100);
    expect(started).toBe(2);
    interval.stop();
  });
});
