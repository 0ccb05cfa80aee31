import { Injectable } from '@nestjs/common';
import { ToolCallLogService } from '@app/modules/executors/tool-call-log/tool-call-log.service';
import { ToolCallJournalRepository } from '../journal/tool-call-journal.repository';
import { canonicalJson } from '@app/common/canonical-json';
import { ToolResultStore } from '../results/tool-result.store';
import type { SubmittedCall } from '../sessions/session.types';
import type { ResumeDecision } from '../sessions/sessions.dto';
import type { ActResult } from './act.types';
import type { BatchContext } from './acting.types';
import { CallRunner, inProgress } from './call-runner';
import { fingerprintOf, toolOfEntry } from './call-interrupts';
import { parseToolArguments } from '@app/modules/tool-invocation/tool-arguments.parser';
import { ToolRegistryService } from '@app/modules/tool-registry/tool-registry.service';

/** Records the decisions that end a pending call without running it: REJECT and MARK_DONE. */
@Injectable()
export class ResumeDecisionApplier {
  constructor(
    private readonly journal: ToolCallJournalRepository,
    private readonly results: ToolResultStore,
    private readonly runner: CallRunner,
    private readonly log: ToolCallLogService,
    private readonly tools: ToolRegistryService,
  ) {}

  /** `toolId`: the tool the pending call was made to (the pending batch's), null when none is known. */
  async record(
    ctx: BatchContext,
    pending: SubmittedCall,
    toolId: string | null,
    decision: ResumeDecision,
    message: string | undefined,
  ): Promise<ActResult> {
    const s = ctx.session;
    const key = { tenantId: s.tenantId, sessionId: s.id, toolCallId: pending.id };
    const markDone = decision === 'MARK_DONE';
    const content = markDone
      ? message?.trim() ||
        `Marked done by a reviewer: ${pending.name} (toolCallId ${pending.id}) is confirmed to have taken effect.`
      : `Rejected by a reviewer: ${pending.name} (toolCallId ${pending.id}) was not run. Reviewer's message: ${message?.trim() || '(none)'}`;
    const outcome = {
      state: markDone ? 'COMPLETED' : 'FAILED',
      resultStatus: markDone ? 'COMPLETED' : 'REJECTED',
      attempts: 0,
      durationMs: 0,
      isError: !markDone,
      errorClass: markDone ? null : 'REJECTED',
      content,
    } as const;
    const existing = await this.journal.find(key);
    // The call's own outcome came in first (its owner's lease had expired, it had not died): that is the answer,
    // as a resubmit of the call gets it, not "not run" or the reviewer's guess.
    if (existing && existing.state !== 'STARTED') return this.runner.reused(existing);
    if (existing) {
      if (!(await this.journal.finish(key, null, outcome, Date.now()))) {
        const finished = await this.journal.find(key);
        if (finished && finished.state !== 'STARTED') return this.runner.reused(finished);
        // Its owner renewed the lease since the check before the decision: the call still runs.
        if (finished) throw inProgress(pending);
      }
    } else {
      const inlineLimit = this.runner.inlineLimitOf(null);
      await this.journal.insertRefused(
        {
          ...key,
          toolName: pending.name,
          toolId,
          fingerprint: fingerprintOf(pending),
          argumentsJson: canonicalJson(argumentsOf(pending)),
          sideEffect: 'SIDE_EFFECT',
          iteration: ctx.iteration,
          owner: 'reviewer',
          leaseExpiresAt: 0,
          inlineLimit,
        },
        Date.now(),
        content,
        'REJECTED',
        'REJECTED',
      );
    }
    this.results.remember(s.tenantId, s.id, pending.id, content);
    // The log row hides what the tool's redactFields name, like every other row of this call: the tool found by id, as
    // it may have been renamed while the call waited.
    const tool = await toolOfEntry(existing ?? { toolId, toolName: pending.name, tenantId: s.tenantId }, this.tools);
    this.log.record({
      tenantId: s.tenantId,
      sessionId: s.id,
      agentId: s.agentId,
      userId: s.userId,
      toolCallId: pending.id,
      toolName: pending.name,
      status: outcome.resultStatus,
      entry: 'RESUME',
      arguments: pending.arguments,
      redactFields: tool?.result?.redactFields,
      attempts: 0,
      durationMs: 0,
      errorClass: markDone ? 'MARKED_DONE' : 'REJECTED',
      content,
    });
    return this.runner.view({
      toolCallId: pending.id,
      toolName: pending.name,
      status: outcome.resultStatus,
      content,
      isError: outcome.isError,
      reused: false,
      attempts: 0,
      durationMs: 0,
      inlineLimit: existing?.inlineLimit ?? this.runner.inlineLimitOf(null),
      errorClass: outcome.errorClass,
    });
  }
}

function argumentsOf(call: SubmittedCall): unknown {
  const parsed = parseToolArguments(call.arguments);
  return parsed.ok ? parsed.value : call.arguments;
}
