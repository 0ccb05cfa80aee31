import type { LookupAddress } from 'node:dns';
import type { OutboundDnsResolver } from './outbound-guard';

/** Lookups that may wait for a free slot; past that a lookup fails at once (EAI_AGAIN: try again later). */
const MAX_WAITING_LOOKUPS = 256;

/**
 * Bounds how much of libuv's thread pool host-name lookups may hold. `dns.lookup` runs getaddrinfo on that pool (4
 * threads unless UV_THREADPOOL_SIZE says otherwise), where it blocks a thread for as long as the resolver takes:
 * seconds per attempt for a name whose DNS servers do not answer. The same pool runs file system calls (workspaces,
 * artifacts), zlib (compressed request bodies) and crypto, so a tenant's tools pointing at a few such names would
 * stall all of those for every tenant. Here at most half the pool (at least one thread) resolves at a time, and
 * concurrent lookups of one name share one getaddrinfo call.
 */
export class DnsLookupLimiter {
  private readonly inFlight = new Map<string, Promise<LookupAddress[]>>();
  private readonly waiting: Array<() => void> = [];
  private running = 0;

  constructor(
    private readonly resolve: OutboundDnsResolver,
    readonly maxConcurrent = Math.max(1, Math.floor(threadPoolSize() / 2)),
  ) {}

  lookup(hostname: string): Promise<LookupAddress[]> {
    let pending = this.inFlight.get(hostname);
    if (!pending) {
      pending = this.run(hostname).finally(() => this.inFlight.delete(hostname));
      this.inFlight.set(hostname, pending);
    }
    return pending;
  }

  private async run(hostname: string): Promise<LookupAddress[]> {
    if (this.running < this.maxConcurrent) this.running++;
    else {
      if (this.waiting.length >= MAX_WAITING_LOOKUPS) {
        throw Object.assign(
          new Error(`${MAX_WAITING_LOOKUPS} host name lookups are already waiting for the resolver`),
          { code: 'EAI_AGAIN' },
        );
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve)); // the slot is handed over (see below)
    }
    try {
      return await this.resolve(hostname);
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

function threadPoolSize(): number {
  const configured = Number(process.env.UV_THREADPOOL_SIZE);
  return Number.isInteger(configured) && configured > 0 ? configured : 4;
}
