interface Slot<T> {
  running: Promise<T>;
  /** The one run queued behind the running one; every caller that arrives meanwhile shares it. */
  queued?: Promise<T>;
}

/**
 * The in-process half of "one sync at a time per service": per key, at most one task runs. A call that
 * arrives while one runs does not start a second: it waits for the one queued run that follows (shared by
 * every caller meanwhile), so a change that came after the running sync read its input is still seen.
 */
export class KeyedSingleFlight<T> {
  private readonly slots = new Map<string, Slot<T>>();

  run(key: string, task: () => Promise<T>): Promise<T> {
    const slot = this.slots.get(key);
    if (!slot) return this.start(key, task);
    slot.queued ??= slot.running.then(noop, noop).then(() => this.start(key, task));
    return slot.queued;
  }

  /** Whether a task of `key` runs or waits now. */
  busy(key: string): boolean {
    return this.slots.has(key);
  }

  /** Settles when every task started or queued so far has settled. */
  async idle(): Promise<void> {
    while (this.slots.size > 0) {
      await Promise.all([...this.slots.values()].map((s) => (s.queued ?? s.running).then(noop, noop)));
    }
  }

  private start(key: string, task: () => Promise<T>): Promise<T> {
    const slot: Slot<T> = { running: Promise.resolve() as unknown as Promise<T> };
    slot.running = (async () => {
      try {
        return await task();
      } finally {
        // A queued run replaces this slot when it starts; until then the slot stays, so no one starts a parallel run.
        if (this.slots.get(key) === slot && !slot.queued) this.slots.delete(key);
      }
    })();
    this.slots.set(key, slot);
    return slot.running;
  }
}

/** Runs tasks of the same key one after another (each runs; none is merged). */
export class KeyedSerialQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(noop, noop).then(task);
    const tail = next.then(noop, noop);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}

function noop(): void {}
