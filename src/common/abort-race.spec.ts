import { untilAborted, withAnySignal } from './abort-race';

/** A promise settled from outside, to order events without timers. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** Counts the abort listeners registered on a signal (and not removed since). */
function listenerCount(signal: AbortSignal): () => number {
  let count = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = (...args: Parameters<typeof add>) => (count++, add(...args));
  signal.removeEventListener = (...args: Parameters<typeof remove>) => (count--, remove(...args));
  return () => count;
}

describe('untilAborted', () => {
  it('settles with the work when the signal stays quiet, and removes its listener', async () => {
    const outer = new AbortController();
    const listeners = listenerCount(outer.signal);
    await expect(untilAborted(outer.signal, () => Promise.resolve('done'))).resolves.toBe('done');
    await expect(untilAborted(outer.signal, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(listeners()).toBe(0);
  });

  it("rejects with the signal's reason as soon as it aborts, and aborts the work's own signal with it", async () => {
    const outer = new AbortController();
    const work = deferred<string>();
    let seen: AbortSignal | undefined;
    const raced = untilAborted(outer.signal, (own) => ((seen = own), work.promise));
    const reason = new Error('caller went away');
    outer.abort(reason);
    await expect(raced).rejects.toBe(reason);
    expect(seen).not.toBe(outer.signal);
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBe(reason);
    work.resolve('too late'); // dropped, no unhandled rejection either way
  });

  it('does not start the work when the signal is already aborted', async () => {
    const reason = new Error('already gone');
    const work = jest.fn(() => Promise.resolve(1));
    await expect(untilAborted(AbortSignal.abort(reason), work)).rejects.toBe(reason);
    expect(work).not.toHaveBeenCalled();
  });

  it('gives the work a signal of its own when there is no outer signal', async () => {
    let seen: AbortSignal | undefined;
    await expect(untilAborted(undefined, (own) => ((seen = own), Promise.resolve(7)))).resolves.toBe(7);
    expect(seen?.aborted).toBe(false);
  });

  it('rejects, and removes its listener, when the work throws before returning a promise', async () => {
    const outer = new AbortController();
    const listeners = listenerCount(outer.signal);
    await expect(
      untilAborted(outer.signal, () => {
        throw new Error('sync failure');
      }),
    ).rejects.toThrow('sync failure');
    expect(listeners()).toBe(0);
  });
});

describe('withAnySignal', () => {
  it("aborts the work's signal with the reason of whichever source aborts first", async () => {
    const stopping = new AbortController();
    const request = new AbortController();
    const reason = new Error('client went away');
    const seen = await withAnySignal([stopping.signal, request.signal], async (signal) => {
      request.abort(reason);
      stopping.abort(new Error('later'));
      return signal;
    });
    expect(seen.aborted).toBe(true);
    expect(seen.reason).toBe(reason);
  });

  it('starts aborted when a source already is, and skips missing sources', async () => {
    const reason = new Error('stopped');
    const seen = await withAnySignal([undefined, AbortSignal.abort(reason)], async (signal) => signal);
    expect(seen.reason).toBe(reason);
  });

  it('leaves no listener on a long-lived source once the work settles, whether it succeeds or fails', async () => {
    const stopping = new AbortController();
    const listeners = listenerCount(stopping.signal);
    let inside = -1;
    for (let i = 0; i < 100; i++)
      await withAnySignal([stopping.signal, new AbortController().signal], async () => {
        inside = listeners();
      });
    await expect(withAnySignal([stopping.signal], () => Promise.reject(new Error('work failed')))).rejects.toThrow(
      'work failed',
    );
    expect(inside).toBe(1);
    expect(listeners()).toBe(0);
    // Aborting the source now reaches nobody: the signals given out are no longer linked to it.
    const given = await withAnySignal([stopping.signal], async (signal) => signal);
    stopping.abort();
    expect(given.aborted).toBe(false);
  });
});
