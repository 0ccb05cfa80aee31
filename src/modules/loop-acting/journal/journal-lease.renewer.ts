import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { ToolCallJournalRepository } from './tool-call-journal.repository';
import type { JournalClaim } from './journal.types';
import { WhileBusyInterval } from '@app/common/scheduling/while-busy.interval';

/**
 * Keeps the leases of this instance's in-flight calls alive: while any call runs, every third of
 * JOURNAL_LEASE_MS each in-flight entry's lease is extended. A killed process stops renewing, so its
 * STARTED entries expire and the next submission of the same toolCallId is recovered (READ_ONLY reruns,
 * others go to a human).
 */
@Injectable()
export class JournalLeaseRenewer implements OnApplicationShutdown {
  private readonly logger = new Logger(JournalLeaseRenewer.name);
  private readonly inFlight = new Map<string, JournalClaim>();
  private readonly interval: WhileBusyInterval;
  /** Makes this process's claim tokens its own even under a GATEWAY_INSTANCE_ID that a restart reuses. */
  private readonly claimPrefix: string;
  private claims = 0;

  constructor(
    private readonly journal: ToolCallJournalRepository,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {
    this.interval = new WhileBusyInterval(
      Math.max(100, Math.floor(config.journalLeaseMs / 3)),
      () => this.inFlight.size > 0,
      () => this.renew(),
    );
    // The journal's owner column holds 100 characters: the instance id is cut before the token, never the token.
    this.claimPrefix = `${config.instanceId.slice(0, 80)}#${randomBytes(4).toString('hex')}.`;
  }

  /**
   * The owner written by a new claim or take-over: this instance and a token of this one attempt (made here, no
   * round trip). Finishing, releasing and renewing compare it, so an attempt of this instance that stalled past its
   * lease cannot write over, drop or keep alive the entry a later attempt (even of this instance) took over.
   */
  newClaim(): string {
    return `${this.claimPrefix}${(++this.claims).toString(36)}`;
  }

  /** The lease expiry of a claim made now. */
  leaseUntil(now = Date.now()): number {
    return now + this.config.journalLeaseMs;
  }

  /** Wraps one in-flight call (the attempt holding `claim`) so its lease is renewed while it runs. */
  async hold<T>(claim: JournalClaim, work: () => Promise<T>): Promise<T> {
    // By claim token, unique per attempt: two attempts of one toolCallId are two leases.
    this.inFlight.set(claim.owner, claim);
    this.interval.start();
    try {
      return await work();
    } finally {
      this.inFlight.delete(claim.owner);
    }
  }

  /** Renews every in-flight lease; with none in flight the timer stops (not per call: calls come back to back). */
  private async renew(): Promise<void> {
    try {
      await this.journal.renewLeases([...this.inFlight.values()], this.leaseUntil());
    } catch (err) {
      this.logger.error(`Could not renew journal leases: ${(err as Error).message}`);
    }
  }

  onApplicationShutdown(): void {
    this.interval.stop();
  }
}
