import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { GatewayConfig } from '@app/config/gateway-config';
import type { SessionEventsStore } from './session-events.store';
import type { SessionEventPage } from './session-event.types';
import { SessionEventsStreamer, STALLED_CLIENT_MS } from './session-events.streamer';

/** A response whose client reads nothing: every write after the first fills its buffer, `drain` never comes. */
class UnreadResponse extends EventEmitter {
  written = 0;
  ended = false;
  destroyed = false;
  writeHead(): this {
    return this;
  }
  write(): boolean {
    this.written++;
    return false;
  }
  end(): void {
    this.ended = true;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

/** A store holding `count` events of one session. */
function storeOf(count: number): SessionEventsStore {
  const page = (_id: string, after: number, limit: number): Promise<SessionEventPage> => {
    const items = [];
    for (let seq = after + 1; seq <= Math.min(count, after + limit); seq++)
      items.push({ seq, type: 'message' as const, at: new Date(0).toISOString(), data: { seq } });
    return Promise.resolve({ items, nextAfter: items.length > 0 ? items[items.length - 1].seq : after });
  };
  return { page, onAppended: () => () => undefined } as unknown as SessionEventsStore;
}

const config = { eventsStreamPollMs: 100, eventsStreamMaxPerTenant: 10 } as GatewayConfig;
/** A session that is not closed. */
const open = () => Promise.resolve(null);

/**
 * Streams `events` events of session s1 from the start to `res`, asking `keyValid` whether the key may still read;
 * `finished()` tells whether the stream has ended.
 */
function startStream(res: UnreadResponse, events: number, keyValid: () => boolean): { finished: () => boolean } {
  const done = new SessionEventsStreamer(storeOf(events), config).stream(
    's1',
    0,
    res as unknown as ServerResponse,
    new AbortController().signal,
    () => Promise.resolve(keyValid()),
    open,
  );
  let finished = false;
  void done.then(() => (finished = true));
  return { finished: () => finished };
}

describe('SessionEventsStreamer', () => {
  describe('stream', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('ends a stream whose client reads nothing once its key may no longer read, and frees the connection', async () => {
      const res = new UnreadResponse();
      let keyValid = true;
      const stream = startStream(res, 500, () => keyValid);
      await jest.advanceTimersByTimeAsync(5_000);
      expect(stream.finished()).toBe(false);
      keyValid = false;
      await jest.advanceTimersByTimeAsync(2_000);
      expect(stream.finished()).toBe(true);
      expect(res.destroyed).toBe(true);
      // Nothing more was written once the client stopped taking it: the retry line and the first event.
      expect(res.written).toBe(2);
    });

    it(`cuts a client that takes nothing for ${STALLED_CLIENT_MS / 1000} s (it holds one of its tenant's places)`, async () => {
      const res = new UnreadResponse();
      const stream = startStream(res, 500, () => true);
      await jest.advanceTimersByTimeAsync(STALLED_CLIENT_MS - 2_000);
      expect(stream.finished()).toBe(false);
      await jest.advanceTimersByTimeAsync(4_000);
      expect(stream.finished()).toBe(true);
      expect(res.destroyed).toBe(true);
    });

    it('ends the stream of a deleted key within a second also while its client keeps reading a page slowly', async () => {
      const res = new UnreadResponse();
      // The client takes each event 100 ms after it was written: a page of events takes it 10 s.
      res.write = () => {
        res.written++;
        setTimeout(() => res.emit('drain'), 100);
        return false;
      };
      let keyValid = true;
      const stream = startStream(res, 100_000, () => keyValid);
      await jest.advanceTimersByTimeAsync(3_000);
      expect(stream.finished()).toBe(false);
      keyValid = false;
      await jest.advanceTimersByTimeAsync(1_500);
      expect(stream.finished()).toBe(true);
      // Within its first page of 100 events (the retry line is the first write).
      expect(res.written).toBeLessThan(101);
    });

    it('ends the response and stops listening when the session cannot be read at the start', async () => {
      const res = new UnreadResponse();
      const unsubscribe = jest.fn();
      const store = { ...storeOf(1), onAppended: () => unsubscribe } as unknown as SessionEventsStore;
      const failing = () => Promise.reject(new Error('database gone'));
      await expect(
        new SessionEventsStreamer(store, config).stream(
          's1',
          0,
          res as unknown as ServerResponse,
          new AbortController().signal,
          () => Promise.resolve(true),
          failing,
        ),
      ).rejects.toThrow('database gone');
      expect(res.ended).toBe(true);
      expect(unsubscribe).toHaveBeenCalledTimes(1);
    });

    it('goes on with a client that drains, however slowly', async () => {
      const res = new UnreadResponse();
      const streamer = new SessionEventsStreamer(storeOf(3), config);
      const abort = new AbortController();
      const done = streamer.stream(
        's1',
        0,
        res as unknown as ServerResponse,
        abort.signal,
        () => Promise.resolve(true),
        open,
      );
      for (let i = 0; i < 3; i++) {
        await jest.advanceTimersByTimeAsync(STALLED_CLIENT_MS - 1_000);
        res.emit('drain');
      }
      await jest.advanceTimersByTimeAsync(1_000);
      expect(res.written).toBe(4);
      expect(res.destroyed).toBe(false);
      abort.abort();
      await jest.advanceTimersByTimeAsync(1_000);
      await done;
      expect(res.ended).toBe(true);
    });
  });
});
