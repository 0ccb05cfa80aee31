import type { LookupAddress } from 'node:dns';
import type { OutboundDnsResolver } from './outbound-guard';

/** Lookups that may wait for a free slot, per lane; past that a lookup fails at once (EAI_AGAIN: try again later). */
const MAX_WAITING_LOOKUPS = 256;

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
 * its services), which keeps getting every other slot. (OutboundHttpAgent gives tenants' calls a guard of their own,
 * whatever OUTBOUND_PLATFORM_ONLY_HOSTS holds.)
 */
export class DnsLookupLimiter {
  private readonly inFlight = new Map<string, Promise<LookupAddress[]>>();
  /** Per lane, the lookups waiting for a slot; a lane keeps its (empty) queue once it has had one. */
  private readonly waiting = new Map<DnsLookupLane, Array<() => void>>();
  private running = 0;

  constructor(
    private readonly resolve: OutboundDnsResolver,
    readonly maxConcurrent = Math.max(1, Math.floor(threadPoolSize() / 2)),
  ) {}

  lookup(hostname: string, lane: DnsLookupLane = 'platform'): Promise<LookupAddress[]> {
    // One lookup per name and lane: sharing one queued in the other lane would put this lane behind that queue.
    const key = `${lane} ${hostname}`;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.run(hostname, lane).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private async run(hostname: string, lane: DnsLookupLane): Promise<LookupAddress[]> {
    if (this.running < this.maxConcurrent) this.running++;
    else {
      const queue = this.waiting.get(lane) ?? [];
      if (queue.length >= MAX_WAITING_LOOKUPS) {
        throw Object.assign(
          new Error(`${MAX_WAITING_LOOKUPS} host name lookups are already waiting for the resolver`),
          { code: 'EAI_AGAIN' },
        );
      }
      this.waiting.set(lane, queue);
      await new Promise<void>((resolve) => queue.push(resolve)); // the slot is handed over (see handOver)
    }
    try {
      return await this.resolve(hostname);
    } finally {
      this.handOver(lane);
    }
  }

  /** Gives the slot `freedBy` held to the first lane after it with a lookup waiting (its own last), else frees it. */
  private handOver(freedBy: DnsLookupLane): void {
    const lanes = [...this.waiting.keys()];
    const start = lanes.indexOf(freedBy) + 1;
    for (let i = 0; i < lanes.length; i++) {
      const next = this.waiting.get(lanes[(start + i) % lanes.length])!.shift();
      if (next) return next();
    }
    this.running--;
  }
}

function threadPoolSize(): number {
  const configured = Number(process.env.UV_THREADPOOL_SIZE);
  return Number.isInteger(configured) && configured > 0 ? configured : 4;
}
