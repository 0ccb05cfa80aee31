import { Inject, Injectable, Logger } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { SessionEventOutboxRepository } from './session-event-outbox.repository';
import { SessionEventsStore } from './session-events.store';

/** Most kept events one round writes; the rest wait for the next round. */
const OUTBOX_ROUND_LIMIT = 100;

/**
 * Writes the events whose state a transaction committed and whose process died before writing them (kept in the
 * outbox for longer than JOURNAL_LEASE_MS). Without this a runtime replaying the stream never learned that a call
 * was interrupted, a request decided or a run finished. Each is written once (its once-key), also when its process
 * was only slow and writes it too.
 */
@Injectable()
export class SessionEventOutboxRecovery {
  private readonly logger = new Logger(SessionEventOutboxRecovery.name);

  constructor(
    private readonly outbox: SessionEventOutboxRepository,
    private readonly events: SessionEventsStore,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** One round; returns how many kept events it wrote. */
  async writeAbandoned(now = Date.now()): Promise<number> {
    const rows = await this.outbox.findKeptBefore(now - this.config.journalLeaseMs, OUTBOX_ROUND_LIMIT);
    if (rows.length === 0) return 0;
    await this.events.writeKept(rows);
    this.logger.warn(
      `Wrote ${rows.length} session event(s) whose state was committed by a process that stopped before writing them (sessions ${[...new Set(rows.map((r) => r.sessionId))].join(', ')}).`,
    );
    return rows.length;
  }
}
