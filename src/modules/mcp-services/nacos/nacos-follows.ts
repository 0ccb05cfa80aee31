/** How long a Nacos service no call has used stays subscribed. */
export const FOLLOW_IDLE_MS = 10 * 60_000;
/** Services followed at most at once: past that, the one used longest ago is let go. */
export const MAX_FOLLOWED_SERVICES = 1_000;

interface Follow {
  stop: () => void;
  lastUsedAt: number;
}

/**
 * The Nacos services the MCP_NACOS executor keeps subscribed (pushes keep its instance cache fresh), by key.
 * Services of hand-registered tools are followed from their first call; one that no call has used for
 * {@link FOLLOW_IDLE_MS}, or the least recently used beyond {@link MAX_FOLLOWED_SERVICES}, is unsubscribed and its
 * cached instances dropped (`forget`), so a later call asks Nacos again instead of reading a list no push refreshes.
 * Without this, every service name a tenant admin ever called stayed subscribed until restart.
 */
export class NacosFollows {
  /** Insertion order is use order: a used service moves to the end. */
  private readonly follows = new Map<string, Follow>();
  private nextSweepAt = 0;

  constructor(
    private readonly forget: (key: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  has(key: string): boolean {
    return this.follows.has(key);
  }

  get size(): number {
    return this.follows.size;
  }

  /** A call used the service: it stays followed; services idle too long are let go (checked once a minute). */
  touch(key: string): void {
    const now = this.now();
    const follow = this.follows.get(key);
    if (follow) {
      this.follows.delete(key);
      follow.lastUsedAt = now;
      this.follows.set(key, follow);
    }
    if (now >= this.nextSweepAt) this.sweep(now);
  }

  /** Starts following `key` with `subscribe` (which returns its unsubscribe), unless it is followed already. */
  follow(key: string, subscribe: () => () => void): void {
    if (this.follows.has(key)) return this.touch(key);
    this.follows.set(key, { stop: subscribe(), lastUsedAt: this.now() });
    for (const oldest of this.follows.keys()) {
      if (this.follows.size <= MAX_FOLLOWED_SERVICES) break;
      this.release(oldest);
    }
  }

  stopAll(): void {
    for (const { stop } of this.follows.values()) stop();
    this.follows.clear();
  }

  private sweep(now: number): void {
    this.nextSweepAt = now + 60_000;
    for (const [key, { lastUsedAt }] of this.follows) {
      if (now - lastUsedAt < FOLLOW_IDLE_MS) break; // the rest were used later
      this.release(key);
    }
  }

  private release(key: string): void {
    this.follows.get(key)?.stop();
    this.follows.delete(key);
    this.forget(key);
  }
}
