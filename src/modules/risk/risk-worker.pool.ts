import { Logger } from '@nestjs/common';
import { Piscina } from 'piscina';
import type { RiskReading } from './risk-readings';
import type { RiskVerdict } from './risk.types';

/** A worker thread with no task for this long exits; the next large call starts one again (~50 ms). */
const IDLE_EXIT_MS = 60_000;

/**
 * Where the texts of a large call are read: one worker thread, started on first use. Reading megabytes of text takes
 * about a second per 8 MB (the pattern pre-check, then the fallback shell scan); on the main thread that second would
 * stall every other request of every tenant. Calls queue for the thread in arrival order.
 */
export class RiskWorkerPool {
  private readonly logger = new Logger(RiskWorkerPool.name);
  private pool?: Piscina<readonly RiskReading[], RiskVerdict>;
  /** The verdicts being worked out, which {@link close} waits for. */
  private readonly inFlight = new Set<Promise<RiskVerdict>>();

  /**
   * The verdict of the worker thread; when the thread fails (it ran out of memory, or it could not start), the
   * arguments count as opaque: a call that cannot be read is not waved through.
   */
  evaluate(readings: readonly RiskReading[]): Promise<RiskVerdict> {
    const verdict = this.verdictOf(readings);
    this.inFlight.add(verdict);
    void verdict.finally(() => this.inFlight.delete(verdict));
    return verdict;
  }

  /**
   * Ends the thread once the calls under way have their verdicts: ending it under them made each one opaque, and
   * so a call a human must approve, for no reason but the instance's shutdown.
   */
  async close(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    const pool = this.pool;
    this.pool = undefined;
    await pool?.destroy();
  }

  private async verdictOf(readings: readonly RiskReading[]): Promise<RiskVerdict> {
    try {
      return await this.started().run(readings);
    } catch (error) {
      // The name only: a clone or parse error's message can quote the arguments, and logs hold no call content.
      this.logger.warn(
        `risk evaluation on a worker thread failed (${(error as Error).name}); the call counts as opaque`,
      );
      return {
        risky: true,
        rules: [{ rule: 'opaque', match: 'arguments too large to read here; a reviewer must look at them' }],
      };
    }
  }

  private started(): Piscina<readonly RiskReading[], RiskVerdict> {
    this.pool ??= new Piscina({
      filename: require.resolve('./risk-readings.worker'),
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: IDLE_EXIT_MS,
      // From sources (tests, benches) the worker compiles TypeScript as the main thread does.
      execArgv: __filename.endsWith('.ts') ? ['-r', '@swc-node/register'] : [],
    });
    return this.pool;
  }
}
