import { Injectable } from '@nestjs/common';
import { ToolCallLogService } from '@app/modules/executors/tool-call-log/tool-call-log.service';
import { ToolCallJournalRepository } from '../journal/tool-call-journal.repository';
import { canonicalJson } from '@app/common/canonical-json';
import { ToolResultStore } from '../results/tool-result.store';
import type { SubmittedCall } from '../sessions/session.types';
import type { ResumeDecision } from '../sessions/sessions.dto';
import type { ActResult } from './act.types';
import type { AgentSessionEntity } from '../sessions/agent-session.entity';
import type { JournalEntry } from '../journal/journal.types';
import type { HotStatements } from '@app/database/hot-sql';
import { CallRunner, inProgress } from './call-runner';
import { fingerprintOf, toolOfEntry } from './call-interrupts';
import { parseToolArguments } from '@app/modules/tool-invocation/tool-arguments.parser';
import { ToolRegistryService } from '@app/modules/tool-registry/tool-registry.service';

/**
 * What the journal holds for a call a REJECT or MARK_DONE ends, as written with the decision: `entry` is the call's row
 * when it had finished before (its own outcome came first), undefined when the decision's outcome was written.
 */
export interface DecidedCallOutcome {
  finishedBefore?: JournalEntry;
  /** The inline limit of the call's row (the one it had, or the new one's). */
  inlineLimit: number;
  /** The tool of the call's row (or the pending batch's, for a new row). */
  toolId: string | null;
}

/**
 * Records the decisions that end a pending call without running it: REJECT and MARK_DONE. The journal's outcome is
 * written in the transaction that saves the decision ({@link writeOutcome}), so a session closed right after the
 * decision (DELETE /sessions/{id}) cannot leave the call without one; the rest ({@link report}) follows the commit.
 */
@Injectable()
export class ResumeDecisionApplier {
  constructor(
    private readonly journal: ToolCallJournalRepository,
    private readonly results: ToolResultStore,
    private readonly runner: CallRunner,
    private readonly log: ToolCallLogService,
    private readonly tools: ToolRegistryService,
  ) {}

  /**
   * The journal's outcome of `pending` (REJECT: FAILED, MARK_DONE: COMPLETED), written in `tx`, the decision's
   * transaction. `toolId`: the tool the pending call was made to (the pending batch's), null when none is known.
   * Throws TOOL_CALL_IN_PROGRESS (the decision then is not saved) when the call's owner is back and still runs it.
   */
  async writeOutcome(
    session: AgentSessionEntity,
    iteration: number,
    pending: SubmittedCall,
    toolId: string | null,
    decision: ResumeDecision,
    message: string | undefined,
    tx: HotStatements,
  ): Promise<DecidedCallOutcome> {
    const key = { tenantId: session.tenantId, sessionId: session.id, toolCallId: pending.id };
    const outcome = outcomeOf(pending, decision, message);
    const existing = await this.journal.find(key, tx);
    // The call's own outcome came in first (its owner's lease had expired, it had not died): that is the answer,
    // as a resubmit of the call gets it, not "not run" or the reviewer's guess. So is this decision's, written
    // when it was saved before (a resume carrying out a saved decision saves it again).
    if (existing && existing.state !== 'STARTED') return this.finished(existing, decision);
    if (existing) {
      if (await this.journal.finish(key, null, outcome, Date.now(), tx))
        return { inlineLimit: existing.inlineLimit, toolId: existing.toolId };
      const finished = await this.journal.find(key, tx);
      if (finished && finished.state !== 'STARTED') return this.finished(finished, decision);
      // Its owner renewed the lease since the check before the decision: the call still runs.
      throw inProgress(pending);
    }
    // No row: a REJECT of a call that never started (MARK_DONE is allowed only on UNKNOWN_OUTCOME, whose call has one).
    const inlineLimit = this.runner.inlineLimitOf(null);
    const written = await this.journal.insertRejected(
      {
        ...key,
        toolName: pending.name,
        toolId,
        fingerprint: fingerprintOf(pending),
        argumentsJson: canonicalJson(argumentsOf(pending)),
        sideEffect: 'SIDE_EFFECT',
        iteration,
        owner: REVIEWER,
        leaseExpiresAt: 0,
        inlineLimit,
      },
      Date.now(),
      outcome.content,
      tx,
    );
    if (written === 'CLAIMED') return { inlineLimit, toolId };
    // Submitted meanwhile (TAKEN): as found now.
    const found = await this.journal.find(key, tx);
    if (found && found.state !== 'STARTED') return this.finished(found, decision);
    throw inProgress(pending);
  }

  /** The result of the decision whose outcome {@link writeOutcome} wrote with it, once it is committed. */
  async report(
    s: AgentSessionEntity,
    pending: SubmittedCall,
    decision: ResumeDecision,
    message: string | undefined,
    written: DecidedCallOutcome,
  ): Promise<ActResult> {
    if (written.finishedBefore) return this.runner.reused(written.finishedBefore);
    const outcome = outcomeOf(pending, decision, message);
    this.results.remember(s.tenantId, s.id, pending.id, outcome.content);
    // The log row hides what the tool's redactFields name, like every other row of this call: the tool found by id, as
    // it may have been renamed while the call waited.
    const tool = await toolOfEntry(
      { toolId: written.toolId, toolName: pending.name, tenantId: s.tenantId },
      this.tools,
    );
    this.log.record({
      tenantId: s.tenantId,
      sessionId: s.id,
      agentId: s.agentId,
      userId: s.userId,
      toolCallId: pending.id,
      toolId: written.toolId,
      toolName: pending.name,
      status: outcome.resultStatus,
      entry: 'RESUME',
      arguments: pending.arguments,
      redactFields: tool?.result?.redactFields,
      attempts: 0,
      durationMs: 0,
      errorClass: decision === 'MARK_DONE' ? 'MARKED_DONE' : 'REJECTED',
      content: outcome.content,
    });
    return this.runner.view({
      toolCallId: pending.id,
      toolName: pending.name,
      status: outcome.resultStatus,
      content: outcome.content,
      isError: outcome.isError,
      reused: false,
      attempts: 0,
      durationMs: 0,
      inlineLimit: written.inlineLimit,
      errorClass: outcome.errorClass,
    });
  }

  /**
   * A call found finished: by this decision, saved before (reported as decided, not reused), or on its own (the call's
   * outcome is the answer).
   */
  private finished(entry: JournalEntry, decision: ResumeDecision): DecidedCallOutcome {
    const byThisDecision =
      decision === 'MARK_DONE'
        ? entry.resultStatus === 'COMPLETED' && entry.attempts === 0
        : entry.errorClass === 'REJECTED';
    const row = { inlineLimit: entry.inlineLimit, toolId: entry.toolId };
    return byThisDecision ? row : { ...row, finishedBefore: entry };
  }
}

/** The owner of a row a reviewer's REJECT writes for a call that never started. */
const REVIEWER = 'reviewer';

function outcomeOf(pending: SubmittedCall, decision: ResumeDecision, message: string | undefined) {
  const markDone = decision === 'MARK_DONE';
  const content = markDone
    ? message?.trim() ||
      `Marked done by a reviewer: ${pending.name} (toolCallId ${pending.id}) is confirmed to have taken effect.`
    : `Rejected by a reviewer: ${pending.name} (toolCallId ${pending.id}) was not run. Reviewer's message: ${message?.trim() || '(none)'}`;
  return {
    state: markDone ? 'COMPLETED' : 'FAILED',
    resultStatus: markDone ? 'COMPLETED' : 'REJECTED',
    attempts: 0,
    durationMs: 0,
    isError: !markDone,
    errorClass: markDone ? null : 'REJECTED',
    content,
  } as const;
}

function argumentsOf(call: SubmittedCall): unknown {
  const parsed = parseToolArguments(call.arguments);
  return parsed.ok ? parsed.value : call.arguments;
}
