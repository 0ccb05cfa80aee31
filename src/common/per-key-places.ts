/** One place taken from {@link PerKeyPlaces}; releasing it more than once gives it back once. */
export interface Place {
  release(): void;
}

/**
 * Counts what each key (a tenant, an API key) holds open on this instance, up to a maximum per key: the one count
 * behind the caps on open event streams (EVENTS_STREAM_MAX_PER_TENANT) and on open file transfers
 * (TRANSFERS_MAX_PER_KEY). A key holding nothing takes no memory.
 */
export class PerKeyPlaces {
  private readonly open = new Map<string, number>();

  /** How many places `key` holds. */
  held(key: string): number {
    return this.open.get(key) ?? 0;
  }

  /** Takes one of the `max` places of `key`; null when it holds them all. */
  take(key: string, max: number): Place | null {
    const held = this.held(key);
    if (held >= max) return null;
    this.open.set(key, held + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const left = this.held(key) - 1;
        if (left > 0) this.open.set(key, left);
        else this.open.delete(key);
      },
    };
  }
}
