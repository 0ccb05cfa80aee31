import { Inject, Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { ToolCallJournalRepository } from './tool-call-journal.repository';
import { JournalLeaseRenewer } from './journal-lease.renewer';
import type { JournalClaim, JournalOutcome } from './journal.types';
import { fieldLine } from '@app/common/logging/log-context';

/** The first pause before writing a refused outcome again; it doubles up to the second. */
const FIRST_PAUSE_MS = 50;
const LONGEST_PAUSE_MS = 1_000;

/**
 * Writes the outcome of a call that ran, under the claim that ran it. Until it is written the result exists only in
 * this process: a write the database refuses (a deadlock victim, a busy SQLite file, a dropped connection) is made
 * again, for up to JOURNAL_LEASE_MS with the claim's lease renewed meanwhile; else a call that finished became an
 * UNKNOWN_OUTCOME for a human (or ran again, READ_ONLY). Writing again is safe: the write is one compare-and-set on
 * the claim, and a refused one wrote nothing; a write whose commit landed before its answer was lost is found on the
 * entry and counts as written. False: the entry is no longer this claim's (see the repository's finish).
 */
@Injectable()
export class JournalOutcomeRecorder {
  private readonly logger = new Logger(JournalOutcomeRecorder.name);

  constructor(
    private readonly journal: ToolCallJournalRepository,
    private readonly leases: JournalLeaseRenewer,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  record(claim: JournalClaim, outcome: JournalOutcome): Promise<boolean> {
    return this.leases.hold(claim, async () => {
      const giveUpAt = Date.now() + this.config.journalLeaseMs;
      for (let pause = FIRST_PAUSE_MS, again = false; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS), again = true) {
        try {
          if (await this.journal.finish(claim, claim.owner, outcome, Date.now())) return true;
          // A write made again finds the entry finished: by its own first write when the database committed it and
          // then lost the answer (a connection dropped at the commit), else by whoever took the entry over.
          return again && (await this.landedEarlier(claim, outcome));
        } catch (err) {
          if (Date.now() + pause > giveUpAt) throw err;
          this.logger.warn(
            fieldLine(
              `Writing the outcome of ${claim.toolCallId} failed (${(err as Error).message}); writing it again in ${pause} ms.`,
              { tenantId: claim.tenantId, sessionId: claim.sessionId, toolCallId: claim.toolCallId },
            ),
          );
          await sleep(pause);
        }
      }
    });
  }

  /** Whether the entry holds this claim's outcome (a take-over replaces the owner; only its claim's writes keep it). */
  private async landedEarlier(claim: JournalClaim, outcome: JournalOutcome): Promise<boolean> {
    const entry = await this.journal.find(claim);
    return (
      entry?.owner === claim.owner &&
      entry.state === outcome.state &&
      entry.resultStatus === outcome.resultStatus &&
      entry.totalChars === outcome.content.length
    );
  }
}
