import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { HitlRequestsRepository } from '@app/modules/hitl/requests/hitl-requests.repository';
import { previewParams, previewText } from '@app/modules/hitl/requests/hitl-request.preview';
import { ToolCallLogService } from '@app/modules/executors/tool-call-log/tool-call-log.service';
import { ToolCallJournalRepository } from '../journal/tool-call-journal.repository';
import type { JournalEntry } from '../journal/journal.types';
import { AgentSessionRepository } from '../sessions/agent-session.repository';
import type { HotTransaction } from '@app/database/hot-sql';
import type { HitlRequestView, PendingBatch, SubmittedCall } from '../sessions/session.types';
import type { ActResponse, ActResult } from './act.types';
import type { ApprovalGrant, BatchContext, InterruptSpec } from './acting.types';
import { CallRunner, conflict, inProgress } from './call-runner';
import { fingerprintOf, shownInterrupt } from './call-interrupts';

/**
 * Runs the calls of one batch in order. When one needs a human, the calls before it keep their results,
 * it is PENDING_APPROVAL, the rest are NOT_RUN, and the request and the remaining batch are persisted with
 * the session (INTERRUPTED) in one transaction.
 */
@Injectable()
export class BatchRunner {
  constructor(
    private readonly runner: CallRunner,
    private readonly journal: ToolCallJournalRepository,
    private readonly hitl: HitlRequestsRepository,
    private readonly log: ToolCallLogService,
    private readonly sessions: AgentSessionRepository,
    private readonly events: SessionEventsStore,
  ) {}

  /**
   * Refuses the whole batch up front when a toolCallId conflicts or is still running (nothing runs).
   * `prefetched` is the journal read the caller already made in parallel with the session read.
   */
  async preflight(
    ctx: BatchContext,
    calls: readonly SubmittedCall[],
    prefetched?: Map<string, JournalEntry>,
  ): Promise<Map<string, JournalEntry>> {
    const existing =
      prefetched ??
      (await this.journal.findMany(
        ctx.session.tenantId,
        ctx.session.id,
        calls.map((c) => c.id),
      ));
    const now = Date.now();
    for (const call of calls) {
      const entry = existing.get(call.id);
      if (!entry) continue;
      if (entry.fingerprint !== fingerprintOf(call)) throw conflict(call, entry);
      if (entry.state === 'STARTED' && entry.leaseExpiresAt > now) throw inProgress(call);
    }
    return existing;
  }

  async run(
    ctx: BatchContext,
    calls: readonly SubmittedCall[],
    grant: ApprovalGrant | null,
    leading: ActResult[] = [],
    prefetched?: Map<string, JournalEntry>,
  ): Promise<ActResponse> {
    try {
      return await this.runCalls(ctx, calls, grant, leading, prefetched);
    } finally {
      // No call claimed (all reused, refused, interrupted or refused up front): the new iteration is written alone.
      await this.recordIteration(ctx);
    }
  }

  /** Writes the act's new iteration now, unless a claim already did. */
  async recordIteration(ctx: BatchContext): Promise<void> {
    const iteration = ctx.iterationToRecord;
    if (iteration === undefined) return;
    await this.sessions.raiseIteration(ctx.session.id, iteration);
    ctx.iterationToRecord = undefined;
  }

  private async runCalls(
    ctx: BatchContext,
    calls: readonly SubmittedCall[],
    grant: ApprovalGrant | null,
    leading: ActResult[],
    prefetched: Map<string, JournalEntry> | undefined,
  ): Promise<ActResponse> {
    const existing = await this.preflight(ctx, calls, prefetched);
    const results = [...leading];
    for (let i = 0; i < calls.length; i++) {
      if (ctx.signal?.aborted) {
        // The client went away: start nothing more (these calls have no journal entry and run when resubmitted).
        results.push(...calls.slice(i).map((c) => notRunResult(c, null, 'the client closed the request')));
        return { status: 'COMPLETED', results };
      }
      const step = await this.runner.run(ctx, calls[i], existing.get(calls[i].id), grant);
      if (step.kind === 'result') {
        results.push(step.result);
        continue;
      }
      // Closed while the batch ran (DELETE /sessions/{id}): the calls before keep their results, none starts now.
      const closed = (): ActResponse => ({
        status: 'COMPLETED',
        results: [...results, ...calls.slice(i).map((c) => notRunResult(c, null))],
      });
      if (step.kind === 'sessionClosed') return closed();
      const [pending, notRun] = [calls[i], calls.slice(i + 1)];
      const response = (hitlRequest: HitlRequestView): ActResponse => ({
        status: 'INTERRUPTED',
        results: [...results, pendingResult(pending, hitlRequest), ...notRun.map((c) => notRunResult(c, pending.id))],
        hitlRequest,
      });
      const store = ctx.storeResponse;
      const hitlRequest = await this.interrupt(
        ctx,
        step.interrupt,
        { iteration: ctx.iteration, pending, notRun },
        store && ((view, tx) => store(response(view), tx)),
      ).catch(async (err: unknown) => {
        // A closed session asks nobody: the request was not raised, and the call does not run.
        if (await this.closedMeanwhile(ctx, err)) return null;
        throw err;
      });
      return hitlRequest ? response(hitlRequest) : closed();
    }
    return { status: 'COMPLETED', results };
  }

  /** Whether `err` is the interrupt's lost compare-and-set against a close of the session (DELETE /sessions/{id}). */
  private async closedMeanwhile(ctx: BatchContext, err: unknown): Promise<boolean> {
    if (!(err instanceof DomainError && err.code === CommonErrorCode.CONCURRENT_MODIFICATION)) return false;
    return this.sessions.isClosed(ctx.session.id);
  }

  /**
   * Persists a request, its `hitl.requested` and the session's move to INTERRUPTED in one transaction (compare-and-set
   * on its lock version). The request shows size-capped previews (redacted first, then cut); the pending batch keeps
   * the full arguments. `alongside` runs in the same transaction, given the request as shown.
   */
  async interrupt(
    ctx: BatchContext,
    spec: InterruptSpec,
    batch: PendingBatch,
    alongside?: (view: HitlRequestView, tx: HotTransaction) => Promise<void>,
  ): Promise<HitlRequestView> {
    const s = ctx.session;
    const shown = shownInterrupt(spec);
    const view: HitlRequestView = {
      id: randomUUID(),
      requestType: spec.requestType,
      promptMessage: previewText(shown.promptMessage),
      toolName: spec.toolName,
      toolCallId: spec.call?.id ?? null,
      toolParams: previewParams(shown.toolParams),
      triggerReason: previewText(shown.triggerReason),
      iteration: ctx.iteration,
    };
    const changes = {
      status: 'INTERRUPTED' as const,
      hitlPending: true,
      hitlRequest: view,
      pendingBatch: { ...batch, pendingToolId: spec.toolId },
    };
    const moved = await this.sessions.compareAndSet(s.id, s.lockVersion, changes, async (tx) => {
      await this.hitl.insert(tx.manager, {
        id: view.id,
        tenantId: s.tenantId,
        sessionId: s.id,
        agentId: s.agentId,
        requestType: spec.requestType,
        toolName: spec.toolName,
        toolCallId: view.toolCallId,
        fingerprint: spec.fingerprint,
        promptMessage: view.promptMessage,
        toolParams: JSON.stringify(view.toolParams) ?? 'null',
        triggerReason: view.triggerReason,
        iteration: ctx.iteration,
        status: 'PENDING',
        decision: null,
        decisionMessage: null,
        decidedBy: null,
        decidedAt: null,
        clientMessageId: null,
        createdAt: Date.now(),
      });
      // Kept with the request it reports: a process killed after this commit leaves it for the outbox round to write.
      await this.events.append(
        {
          tenantId: s.tenantId,
          sessionId: s.id,
          type: 'hitl.requested',
          data: {
            requestId: view.id,
            requestType: view.requestType,
            toolCallId: view.toolCallId,
            toolName: view.toolName,
          },
        },
        tx.manager,
      );
      await alongside?.(view, tx);
    });
    if (!moved) {
      throw new DomainError(
        CommonErrorCode.CONCURRENT_MODIFICATION,
        `Session ${s.id} was changed by another request while this batch ran; read it with GET /api/v1/sessions/${s.id} and submit again.`,
      );
    }
    s.lockVersion += 1;
    Object.assign(s, changes);
    this.log.record({
      tenantId: s.tenantId,
      sessionId: s.id,
      agentId: s.agentId,
      userId: s.userId,
      toolCallId: view.toolCallId,
      toolId: spec.toolId,
      toolName: spec.toolName ?? '(checkpoint)',
      status: spec.requestType === 'UNKNOWN_OUTCOME' ? 'UNKNOWN_OUTCOME' : 'PENDING_APPROVAL',
      entry: ctx.entry,
      arguments: spec.args,
      redactFields: spec.redactFields,
      attempts: 0,
      durationMs: 0,
      errorClass: spec.requestType,
      content: view.triggerReason,
    });
    return view;
  }
}

function pendingResult(call: SubmittedCall, spec: Pick<InterruptSpec, 'requestType' | 'triggerReason'>): ActResult {
  const content =
    spec.requestType === 'UNKNOWN_OUTCOME'
      ? `Outcome unknown: ${call.name} (${call.id}) was started by a gateway process that stopped. A human must decide; it was not run again.`
      : `Awaiting human approval: ${call.name} (${call.id}) was not run (${spec.triggerReason}).`;
  return unrunResult(call, 'PENDING_APPROVAL', content);
}

export function notRunResult(call: SubmittedCall, blockedBy: string | null, why = 'the session was closed'): ActResult {
  const content = blockedBy
    ? `Not run: the batch stopped at ${blockedBy}, which waits for a human decision.`
    : `Not run: ${why}.`;
  return unrunResult(call, 'NOT_RUN', content);
}

/** The result of a call that did not run (it waits for a human, or the batch stopped before it). */
function unrunResult(call: SubmittedCall, status: 'PENDING_APPROVAL' | 'NOT_RUN', content: string): ActResult {
  return {
    toolCallId: call.id,
    toolName: call.name,
    status,
    content,
    isError: false,
    reused: false,
    attempts: 0,
    durationMs: 0,
    totalChars: content.length,
    truncated: false,
    errorClass: null,
  };
}
