import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { ToolCallJournalRepository } from './tool-call-journal.repository';
import type { JournalKey } from './journal.types';
import { WhileBusyInterval } from '@app/common/scheduling/while-busy.interval';

/**
 * Keeps the leases of this instance's in-flight calls alive: while any call runs, every third of
 * JOURNAL_LEASE_MS each in-flight entry's lease is extended. A killed process stops renewing, so its
 * STARTED entries expire and the next submission of the same toolCallId is recovered (READ_ONLY reruns,
 * others go to a human).
 */
@Injectable()
export class JournalLeaseRenewer implements OnModuleDestroy {
  private readonly logger = new Logger(JournalLeaseRenewer.name);
  private readonly inFlight = new Map<string, JournalKey>();
  private readonly interval: WhileBusyInterval;

  constructor(
    private readonly journal: ToolCallJournalRepository,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {
    this.interval = new WhileBusyInterval(
      Math.max(100, Math.floor(config.journalLeaseMs / 3)),
      () => this.inFlight.size > 0,
      () => this.renew(),
    );
  }

  get owner(): string {
    return this.config.instanceId;
  }

  /** The lease expiry of a claim made now. */
  leaseUntil(now = Date.now()): number {
    return now + this.config.journalLeaseMs;
  }

  /** Wraps one in-flight call so its lease is renewed while it runs. */
  async hold<T>(key: JournalKey, work: () => Promise<T>): Promise<T> {
    const id = `${key.tenantId}\u0000${key.sessionId}\u0000${key.toolCallId}`;
    this.inFlight.set(id, key);
    this.interval.start();
    try {
      return await work();
    } finally {
      this.inFlight.delete(id);
    }
  }

  /** Renews every in-flight lease; with none in flight the timer stops (not per call: calls come back to back). */
  private async renew(): Promise<void> {
    try {
      await this.journal.renewLeases(this.owner, [...this.inFlight.values()], this.leaseUntil());
    } catch (err) {
      this.logger.error(`Could not renew journal leases: ${(err as Error).message}`);
    }
  }

  onModuleDestroy(): void {
    this.interval.stop();
  }
}
