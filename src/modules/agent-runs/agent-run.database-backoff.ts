/** Runs whose hand-backs in a row are counted at most (the oldest counted is forgotten first). */
const MAX_COUNTED_RUNS = 10_000;

/**
 * How long a run waits in the queue after a step the database refused as busy or unreachable (a deadlock victim, a
 * lock wait timeout, a lost connection, SQLite BUSY): `baseMs` (RUN_POLL_INTERVAL_MS), doubled for each such hand-back
 * of the run in a row, at most `maxMs` (RUN_LEASE_MS: no longer than a run whose worker died waits). Never 0: a run
 * whose every step the database refuses is tried again at that pace, not in a hot loop, and a step that asks the model
 * again (its answer was not checkpointed yet) pays for that request at most once per wait.
 * Counted in this process only: another instance that takes the run over starts again from `baseMs`.
 */
export class AgentRunDatabaseBackoff {
  private readonly handBacks = new Map<string, number>();

  constructor(
    private readonly baseMs: number,
    private readonly maxMs: number,
  ) {}

  /** Counts one more hand-back of `runId` in a row; the wait before the run may be claimed again, in ms. */
  next(runId: string): number {
    const count = (this.handBacks.get(runId) ?? 0) + 1;
    this.handBacks.delete(runId);
    this.handBacks.set(runId, count);
    const oldest = this.handBacks.keys().next();
    if (this.handBacks.size > MAX_COUNTED_RUNS && !oldest.done) this.handBacks.delete(oldest.value);
    const base = Math.max(1, this.baseMs);
    return Math.min(base * 2 ** Math.min(count - 1, 30), Math.max(base, this.maxMs));
  }

  /** The run got on (or stopped): its next hand-back waits `baseMs` again. */
  reset(runId: string): void {
    this.handBacks.delete(runId);
  }
}
