import { Inject, Injectable, Logger } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { databaseErrorCode } from '@app/database/database-error-code';
import { GatewayMetrics } from '@app/modules/metrics/gateway-metrics.service';
import { isTransientDatabaseError } from '@app/database/transient-database-error';
import { DueKeptEvent, SessionEventOutboxRepository } from './session-event-outbox.repository';
import { SessionEventsStore } from './session-events.store';

/** Most kept events one round writes; the rest wait for the next round. */
const OUTBOX_ROUND_LIMIT = 100;
/** Failed attempts after which a round gives up on a kept event (after about 127 JOURNAL_LEASE_MS of waits). */
export const SESSION_EVENT_OUTBOX_MAX_ATTEMPTS = 8;
/** The longest wait between two attempts, in JOURNAL_LEASE_MS. */
const MAX_RETRY_WAIT_LEASES = 64;

/**
 * Writes the events whose state a transaction committed and whose process died before writing them (kept in the
 * outbox for longer than JOURNAL_LEASE_MS). Without this a runtime replaying the stream never learned that a call
 * was interrupted, a request decided or a run finished. Each is written once (its once-key), also when its process
 * was only slow and writes it too.
 *
 * A row that fails (its payload no longer parses, the database refuses it) gets its failed attempt counted on it and
 * waits twice as long after each (JOURNAL_LEASE_MS first): a round that runs more often (several instances, a database
 * back from an outage) never uses a row's attempts up faster than that. After
 * {@link SESSION_EVENT_OUTBOX_MAX_ATTEMPTS} the row is given up: logged once as an error, counted in the metrics,
 * kept for inspection and never tried again. A failing row never holds back the others, of its session or not. A failure
 * that says the database was busy or unreachable (a lock wait timeout, a deadlock, a lost connection) costs the row no
 * attempt: it waits as long and is tried again, so an outage never has healthy rows given up.
 */
@Injectable()
export class SessionEventOutboxRecovery {
  private readonly logger = new Logger(SessionEventOutboxRecovery.name);

  constructor(
    private readonly outbox: SessionEventOutboxRepository,
    private readonly events: SessionEventsStore,
    private readonly metrics: GatewayMetrics,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** One round; returns how many kept events it wrote. */
  async writeAbandoned(now = Date.now()): Promise<number> {
    const due = await this.outbox.findDue(now - this.config.journalLeaseMs, now, OUTBOX_ROUND_LIMIT);
    if (due.length === 0) return 0;
    const readable = due.flatMap((d) => (d.event ? [d.event] : []));
    const failures = await this.events.writeKept(readable);
    for (const d of due) {
      if (!d.event) await this.countFailure(d, d.unreadable, now);
      else if (failures.has(d.id)) await this.countFailure(d, failures.get(d.id), now);
    }
    const written = readable.filter((e) => !failures.has(e.id));
    if (written.length === 0) return 0;
    this.logger.warn(
      `Wrote ${written.length} session event(s) whose state was committed by a process that stopped before writing them (sessions ${[...new Set(written.map((r) => r.sessionId))].join(', ')}).`,
    );
    return written.length;
  }

  /**
   * Counts a failed attempt on `row` (once, however many rounds failed it at once), then waits for the next or gives
   * up; a failure of the database rather than of the row only waits. What failed is named by its code only: a driver's message may quote the payload, which may hold secrets.
   */
  private async countFailure(row: DueKeptEvent, failure: unknown, now: number): Promise<void> {
    const attempt = row.attempts + 1;
    const what = `Session event outbox row ${row.id} (session ${row.sessionId}, event ${row.type})`;
    const waitMs = this.config.journalLeaseMs * Math.min(2 ** (attempt - 1), MAX_RETRY_WAIT_LEASES);
    if (isTransientDatabaseError(failure)) {
      // The database was busy or unreachable: that says nothing of the row, so it costs none of its attempts.
      if (await this.outbox.postponeAttempt(row.id, row.attempts, now, now + waitMs))
        this.logger.warn(
          `${what} was not written, the database being busy or unreachable (${databaseErrorCode(failure)}): tried again in ${waitMs} ms, no attempt counted.`,
        );
      return;
    }
    if (attempt >= SESSION_EVENT_OUTBOX_MAX_ATTEMPTS) {
      if (!(await this.outbox.countFailedAttempt(row.id, row.attempts, { retryAt: now, givenUpAt: now }))) return;
      this.metrics.recordSessionEventGivenUp(row.type);
      this.logger.error(
        `${what} given up after ${attempt} failed attempts to write it (last: ${databaseErrorCode(failure)}): it stays in session_event_outbox for inspection and is not tried again. Fix the cause and set its given_up_at to NULL to have it written, or delete the row.`,
      );
      return;
    }
    if (!(await this.outbox.countFailedAttempt(row.id, row.attempts, { retryAt: now + waitMs, givenUpAt: null })))
      return;
    this.logger.warn(
      `${what} was not written (attempt ${attempt} of ${SESSION_EVENT_OUTBOX_MAX_ATTEMPTS}, ${databaseErrorCode(failure)}): tried again in ${waitMs} ms.`,
    );
  }
}
