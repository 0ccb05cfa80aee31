import { Injectable, Logger } from '@nestjs/common';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { AgentSessionRepository } from '../sessions/agent-session.repository';
import type { SubmittedCall } from '../sessions/session.types';
import { ToolRegistryService } from '@app/modules/tool-registry/tool-registry.service';
import { BuiltinToolCatalog } from '@app/modules/tool-registry/builtin-tool.catalog';
import { BatchRunner } from '../acting/batch-runner';
import { runsAgainAfterCrash, toolOfEntry, unknownOutcomeInterrupt } from '../acting/call-interrupts';
import { ToolCallJournalRepository } from './tool-call-journal.repository';
import type { JournalEntry } from './journal.types';
import { FAILURE_PREFIX } from '@app/modules/executors/call-path/tool-call.types';

/** Most entries one sweep looks at; the rest wait for the next round. */
const SWEEP_BATCH = 100;

/**
 * Finds side-effecting calls left STARTED by a dead owner (lease expired) and raises them as UNKNOWN_OUTCOME
 * requests exactly as `act` does when the runtime resubmits: the same request row and session move
 * (INTERRUPTED, the call pending), so a later resubmit gets SESSION_INTERRUPTED and a resume or an admin
 * decision works it. Safe on several instances: the session's compare-and-set (in the transaction that inserts
 * the request) lets one sweep or act win; the others change nothing. Calls that run again on their own (READ_ONLY,
 * and built-ins keyed by the toolCallId: see runsAgainAfterCrash) are left for the resubmit.
 */
@Injectable()
export class JournalOrphanSweepService {
  private readonly logger = new Logger(JournalOrphanSweepService.name);
  private running = false;
  /**
   * Entries already reported as not raisable (warned once, not every round), with their lease expiry. Kept only while
   * they are still listed as orphans: else every entry ever passed over stayed in memory for the life of the process.
   */
  private readonly skipped = new Map<string, number>();

  constructor(
    private readonly journal: ToolCallJournalRepository,
    private readonly sessions: AgentSessionRepository,
    private readonly batches: BatchRunner,
    private readonly tools: ToolRegistryService,
    private readonly builtins: BuiltinToolCatalog,
  ) {}

  /** One round; returns how many requests it raised. A round still running makes the next one a no-op. */
  async sweep(now = Date.now()): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    try {
      let raised = 0;
      // Entries found unraisable before are passed over, not counted in the batch: else as many of them as the
      // batch holds (the oldest, listed first) would hide every newer orphan for good.
      const limit = SWEEP_BATCH + this.skipped.size;
      const found = await this.journal.findOrphaned(now, limit);
      this.forgetSkippedNotIn(found, found.length < limit);
      const open = found.filter((e) => !this.skipped.has(skipKey(e))).slice(0, SWEEP_BATCH);
      for (const entry of open) {
        // One entry that cannot be raised must not stop the others.
        const ok = await this.raise(entry).catch((err: unknown) =>
          this.skip(entry, `raising it failed: ${(err as Error).message}`),
        );
        if (ok) raised++;
      }
      await this.endAbandoned(now);
      return raised;
    } finally {
      this.running = false;
    }
  }

  private async raise(entry: JournalEntry): Promise<boolean> {
    const session = await this.sessions.find(entry.sessionId);
    if (!session || session.tenantId !== entry.tenantId || session.status !== 'ACTIVE') return false;
    // The reviewer sees the arguments with the tool's redactFields hidden, as in the request act raises.
    const tool = await toolOfEntry(entry, this.tools);
    // Passed over quietly, like a READ_ONLY call: the resubmit runs it again, no human needs to look.
    if (runsAgainAfterCrash(entry, tool, this.builtins)) return this.skip(entry);
    // The stored arguments may differ from those submitted (read by the call's format): the call keeps the entry's
    // fingerprint, which a decision and the runtime's resubmit are checked against.
    const call: SubmittedCall = {
      id: entry.toolCallId,
      name: entry.toolName,
      arguments: JSON.parse(entry.argumentsJson),
      stored: { fingerprint: entry.fingerprint },
    };
    const ctx = { session, iteration: entry.iteration, entry: 'ACT' as const, freshSince: performance.now() };
    try {
      await this.batches.interrupt(ctx, unknownOutcomeInterrupt(call, entry, tool?.result?.redactFields), {
        iteration: entry.iteration,
        pending: call,
        notRun: [],
      });
      return true;
    } catch (err) {
      // Another instance's sweep, or the runtime's act, moved the session first: it raised the request.
      if (err instanceof DomainError && err.code === CommonErrorCode.CONCURRENT_MODIFICATION) return false;
      throw err;
    }
  }

  /**
   * Calls left STARTED by a dead owner in a closed session: nothing can run them again or decide them (a closed
   * session takes no act, its requests were ended), so they are finished as FAILED, `OUTCOME_UNKNOWN`, saying why.
   * Their row (arguments, owner, times) stays with the session until retention deletes it; else a STARTED entry kept
   * its session from retention for good, and the STARTED gauge counted it. Part of every sweep, and the whole round
   * when the sweep is off (JOURNAL_SWEEP_INTERVAL_MS=0).
   */
  async endAbandoned(now = Date.now()): Promise<void> {
    for (const entry of await this.journal.findAbandonedInClosedSessions(now, SWEEP_BATCH)) {
      const content = `${FAILURE_PREFIX}the gateway process that was running ${entry.toolName} (${entry.owner}) stopped before recording the outcome, and session ${entry.sessionId} was closed before anyone decided it: whether the call took effect is unknown; check the target system.`;
      const outcome = { ...ABANDONED, content };
      // Only while the lease is still expired: an owner that is back finishes the call itself.
      const ended = await this.journal.finish(entry, null, outcome, now).catch((err: unknown) => {
        this.logger.error(`Could not end journal entry ${entry.toolCallId}: ${(err as Error).message}`);
        return false;
      });
      if (ended)
        this.logger.warn(
          `Journal entry ${entry.toolCallId} (${entry.toolName}) of closed session ${entry.sessionId} (tenant ${entry.tenantId}) had a dead owner: ended as FAILED ${ABANDONED.errorClass}; its outcome is unknown.`,
        );
    }
  }

  /**
   * Drops the passed-over entries this round no longer lists (finished, renewed, or their session is not ACTIVE any
   * more). The list is oldest lease first: when it was cut at its limit, only those older than its last are known gone.
   */
  private forgetSkippedNotIn(found: readonly JournalEntry[], complete: boolean): void {
    const listed = new Set(found.map(skipKey));
    const before = complete ? Infinity : (found.at(-1)?.leaseExpiresAt ?? -Infinity);
    for (const [key, lease] of this.skipped) if (!listed.has(key) && lease < before) this.skipped.delete(key);
  }

  /** Passes the entry over until it is no longer listed; `why` is warned once (none: an entry left on purpose). */
  private skip(entry: JournalEntry, why?: string): false {
    const key = skipKey(entry);
    if (!this.skipped.has(key)) {
      this.skipped.set(key, entry.leaseExpiresAt);
      if (why)
        this.logger.warn(
          `Journal entry ${entry.toolCallId} of session ${entry.sessionId} stays STARTED for the runtime to resubmit: ${why}.`,
        );
    }
    return false;
  }
}

/** The outcome of a call abandoned in a closed session (its content says why). */
const ABANDONED = {
  state: 'FAILED',
  resultStatus: 'FAILED',
  attempts: 0,
  durationMs: 0,
  isError: true,
  errorClass: 'OUTCOME_UNKNOWN',
} as const;

function skipKey(entry: JournalEntry): string {
  return `${entry.sessionId}/${entry.toolCallId}`;
}
