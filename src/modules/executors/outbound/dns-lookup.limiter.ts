import type { LookupAddress } from 'node:dns';
import type { OutboundDnsResolver } from './outbound-guard';

/** Lookups that may wait for a free slot, per lane; past that a lookup fails at once (EAI_AGAIN: try again later). */
const MAX_WAITING_LOOKUPS = 256;

/**
 * How long an outbound socket may take to connect, its host-name lookup included (undici's connect timeout): a lookup
 * still waiting for a slot after that has no caller left, and is dropped instead of run.
 */
export const OUTBOUND_CONNECT_TIMEOUT_MS = 10_000;

/** Whose lookups wait together: the platform's own, or the tenants' (see OutboundGuard.forTenants). */
export type DnsLookupLane = 'platform' | 'tenants';

/**
 * Bounds how much of libuv's thread pool host-name lookups may hold. `dns.lookup` runs getaddrinfo on that pool (4
 * threads unless UV_THREADPOOL_SIZE says otherwise), where it blocks a thread for as long as the resolver takes:
 * seconds per attempt for a name whose DNS servers do not answer. The same pool runs file system calls (workspaces,
 * artifacts), zlib (compressed request bodies) and crypto, so a tenant's tools pointing at a few such names would
 * stall all of those for every tenant. Here at most half the pool (at least one thread) resolves at a time, and
 * concurrent lookups of one name share one getaddrinfo call.
 *
 * Each lane (the platform's guard, the tenants' guard) waits in a queue of its own, and a freed slot goes to the lanes
 * in turn: tenants' tools pointing at names that never answer fill their own queue, never the platform's (its models,
 * its services), which keeps getting every other slot. A lookup that waited longer than its socket's connect timeout
 * is dropped when its turn comes (EAI_AGAIN), or when its queue is full and another lookup asks for a place, so names
 * that never answer neither make the queue run lookups no one waits for any more nor refuse new ones in their name.
 * (OutboundHttpAgent gives tenants' calls a guard of their own, whatever OUTBOUND_PLATFORM_ONLY_HOSTS holds.)
 */
export class DnsLookupLimiter {
  private readonly inFlight = new Map<string, SharedLookup>();
  /** Per lane, the lookups waiting for a slot; a lane keeps its (empty) queue once it has had one. */
  private readonly waiting = new Map<DnsLookupLane, QueuedLookup[]>();
  private running = 0;

  constructor(
    private readonly resolve: OutboundDnsResolver,
    readonly maxConcurrent = Math.max(1, Math.floor(threadPoolSize() / 2)),
    private readonly now: () => number = Date.now,
  ) {}

  lookup(hostname: string, lane: DnsLookupLane = 'platform'): Promise<LookupAddress[]> {
    // One lookup per name and lane: sharing one queued in the other lane would put this lane behind that queue.
    const key = `${lane} ${hostname}`;
    const joined = this.inFlight.get(key);
    if (joined) {
      // Still waiting for a slot, it is wanted again: dropped only once its latest caller's connect timed out.
      if (joined.queued) joined.queued.wantedAt = this.now();
      return joined.answer;
    }
    const shared: SharedLookup = { answer: Promise.resolve([]) };
    shared.answer = this.run(hostname, lane, shared).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, shared);
    return shared.answer;
  }

  private async run(hostname: string, lane: DnsLookupLane, shared: SharedLookup): Promise<LookupAddress[]> {
    if (this.running < this.maxConcurrent) this.running++;
    else {
      const queue = this.waiting.get(lane) ?? [];
      // Lookups no one waits for any more hold no place in it.
      if (queue.length >= MAX_WAITING_LOOKUPS) this.dropStale(queue);
      if (queue.length >= MAX_WAITING_LOOKUPS) {
        throw Object.assign(
          new Error(`${MAX_WAITING_LOOKUPS} host name lookups are already waiting for the resolver`),
          { code: 'EAI_AGAIN' },
        );
      }
      this.waiting.set(lane, queue);
      // The slot is handed over (see handOver), or the lookup dropped when it waited too long.
      await new Promise<void>((start, drop) => queue.push((shared.queued = { wantedAt: this.now(), start, drop })));
      shared.queued = undefined;
    }
    try {
      return await this.resolve(hostname);
    } finally {
      this.handOver(lane);
    }
  }

  /**
   * Gives the slot `freedBy` held to the first lane after it with a lookup waiting (its own last), else frees it.
   * Lookups that waited past the connect timeout are dropped on the way.
   */
  private handOver(freedBy: DnsLookupLane): void {
    const lanes = [...this.waiting.keys()];
    const start = lanes.indexOf(freedBy) + 1;
    const staleBefore = this.staleBefore();
    for (let i = 0; i < lanes.length; i++) {
      const queue = this.waiting.get(lanes[(start + i) % lanes.length])!;
      for (let next = queue.shift(); next; next = queue.shift()) {
        if (next.wantedAt >= staleBefore) return next.start();
        next.drop(waitedPastConnectTimeout());
      }
    }
    this.running--;
  }

  /** Drops the lookups of `queue` that waited past the connect timeout (EAI_AGAIN), keeping the others in order. */
  private dropStale(queue: QueuedLookup[]): void {
    const staleBefore = this.staleBefore();
    for (const stale of queue.filter((q) => q.wantedAt < staleBefore)) stale.drop(waitedPastConnectTimeout());
    queue.splice(0, queue.length, ...queue.filter((q) => q.wantedAt >= staleBefore));
  }

  /** A lookup last asked for before this has no caller left: its socket's connect timed out. */
  private staleBefore(): number {
    return this.now() - OUTBOUND_CONNECT_TIMEOUT_MS;
  }
}

/** Why a queued lookup was dropped. */
function waitedPastConnectTimeout(): Error {
  return Object.assign(
    new Error(`waited more than ${OUTBOUND_CONNECT_TIMEOUT_MS} ms for the resolver; its connect timed out`),
    { code: 'EAI_AGAIN' },
  );
}

/** A lookup waiting for a slot. */
interface QueuedLookup {
  /** When a caller last asked for it. */
  wantedAt: number;
  start: () => void;
  drop: (reason: Error) => void;
}

/** One lookup of a name in a lane, shared by its concurrent callers; `queued` while it waits for a slot. */
interface SharedLookup {
  answer: Promise<LookupAddress[]>;
  queued?: QueuedLookup;
}

function threadPoolSize(): number {
  const configured = Number(process.env.UV_THREADPOOL_SIZE);
  return Number.isInteger(configured) && configured > 0 ? configured : 4;
}
