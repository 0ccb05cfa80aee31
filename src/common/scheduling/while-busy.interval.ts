/**
 * Runs `round` every `periodMs` while `busy()` says there is something to keep alive (leases of calls in flight,
 * resume claims), and stops its timer once there is not: `start()` after adding work, `stop()` at shutdown. Never two
 * rounds at once: a round slower than the period (a slow database) skips the ticks it spans instead of stacking
 * statements behind it. `round` handles its own errors.
 */
export class WhileBusyInterval {
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(
    private readonly periodMs: number,
    private readonly busy: () => boolean,
    private readonly round: () => Promise<void>,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.periodMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async tick(): Promise<void> {
    if (!this.busy()) return this.stop();
    if (this.running) return;
    this.running = true;
    try {
      await this.round();
    } finally {
      this.running = false;
    }
  }
}
