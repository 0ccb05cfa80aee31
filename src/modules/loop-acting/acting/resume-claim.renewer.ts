import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { ResumeRecordRepository } from './resume-record.repository';
import { WhileBusyInterval } from '@app/common/scheduling/while-busy.interval';

interface HeldClaim {
  scope: string;
  key: string;
  /** The heartbeat this holder wrote last. */
  at: number;
  /** The renewal of this claim on its way, if one is. */
  renewing?: Promise<void>;
}

/**
 * Keeps the resume claims of this instance alive while their decision works (as JournalLeaseRenewer does for
 * calls): every third of JOURNAL_LEASE_MS each held claim's heartbeat moves on. Else a resume whose calls ran longer
 * than JOURNAL_LEASE_MS was taken over by a repeat of its clientMessageId, which then gave the claim back on its own
 * refusal, and the first resume's response was never stored: later repeats got 409 instead of it.
 */
@Injectable()
export class ResumeClaimRenewer implements OnApplicationShutdown {
  private readonly logger = new Logger(ResumeClaimRenewer.name);
  private readonly held = new Set<HeldClaim>();
  private readonly interval: WhileBusyInterval;

  constructor(
    private readonly records: ResumeRecordRepository,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.interval = new WhileBusyInterval(
      Math.max(100, Math.floor(config.journalLeaseMs / 3)),
      () => this.held.size > 0,
      () => this.renew(),
    );
  }

  /**
   * Runs `work` while the claim of (scope, key), made at `at`, is renewed. `work` may call `lastHeartbeat` to stop
   * the renewals: it waits for one on its way and gives the heartbeat this holder wrote last (what proves the claim
   * is still its own, to give it back). Read while a renewal was on its way, the heartbeat could already be out of
   * date in the database, and the claim, not given back, refused every repeat until it went stale.
   */
  async hold<T>(
    scope: string,
    key: string,
    at: number,
    work: (lastHeartbeat: () => Promise<number>) => Promise<T>,
  ): Promise<T> {
    const claim: HeldClaim = { scope, key, at };
    const stopRenewing = async () => {
      this.held.delete(claim);
      await claim.renewing;
      return claim.at;
    };
    this.held.add(claim);
    this.interval.start();
    try {
      return await work(stopRenewing);
    } finally {
      this.held.delete(claim);
    }
  }

  /** Renews every held claim; with none held the timer stops. */
  private async renew(): Promise<void> {
    for (const claim of [...this.held]) {
      if (!this.held.has(claim)) continue; // its holder stopped renewing while an earlier claim was renewed
      claim.renewing = this.renewOne(claim);
      await claim.renewing;
      claim.renewing = undefined;
    }
  }

  private async renewOne(claim: HeldClaim): Promise<void> {
    const now = Date.now();
    try {
      // Lost (taken over after a stall longer than the lease): nothing to keep alive any more.
      if (await this.records.renew(claim.scope, claim.key, claim.at, now)) claim.at = now;
      else this.held.delete(claim);
    } catch (err) {
      this.logger.error(`Could not renew the resume claim ${claim.key}: ${(err as Error).message}`);
    }
  }

  onApplicationShutdown(): void {
    this.interval.stop();
  }
}
