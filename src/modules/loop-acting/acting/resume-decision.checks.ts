import { Injectable } from '@nestjs/common';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { validationFailed } from '@app/common/errors/validation';
import { HitlRequestsRepository } from '@app/modules/hitl/requests/hitl-requests.repository';
import { AgentConfigService } from '@app/modules/agent-config/agent-config.service';
import type { AgentSessionEntity } from '../sessions/agent-session.entity';
import type { HitlRequestView, PendingBatch, SubmittedCall } from '../sessions/session.types';
import { LoopActingErrorCode } from '../loop-acting.errors';
import type { ResumeDecision } from '../sessions/sessions.dto';
import type { Decider, DecisionClaimKey, DecisionInput } from './resume.service';
import { fingerprintOf } from './call-interrupts';

const ALLOWED: Record<HitlRequestView['requestType'], readonly ResumeDecision[]> = {
  TOOL_APPROVAL: ['APPROVE', 'REJECT'],
  UNKNOWN_OUTCOME: ['RETRY', 'MARK_DONE', 'REJECT'],
  CHECKPOINT_PAUSE: ['CONTINUE', 'APPROVE'],
};

/** A decision checked against the session it decides: the pending request, its batch and the decision to apply. */
export interface CheckedDecision {
  request: HitlRequestView;
  batch: PendingBatch;
  decision: ResumeDecision;
}

/**
 * What must hold before a decision is saved (a refusal after it would leave the session waiting on a decided request
 * that nobody can decide again): the request is the pending one and takes this decision, the decider may decide it,
 * the agent that would run its calls exists, and the claim key decided no other request.
 */
@Injectable()
export class ResumeDecisionChecks {
  constructor(
    private readonly agents: AgentConfigService,
    private readonly hitl: HitlRequestsRepository,
  ) {}

  async beforeSaving(
    session: AgentSessionEntity,
    claimKey: DecisionClaimKey,
    input: DecisionInput,
    decider: Decider,
  ): Promise<CheckedDecision> {
    const checked = this.validate(session, input);
    const { request, batch, decision } = checked;
    if (decider.role === 'runtime' && request.requestType !== 'CHECKPOINT_PAUSE')
      await this.assertRuntimeMayDecide(session);
    if (runsCalls(batch, decision)) await this.assertAgentExists(session, request);
    // An approval saved for a call it cannot run left the session waiting on a decided request for good; a REJECT or
    // MARK_DONE runs nothing, so they still end a call that no longer matches.
    if (batch.pending && (decision === 'APPROVE' || decision === 'RETRY'))
      await this.reviewedFingerprint(session, request, batch.pending);
    await this.assertKeyDecidedNoOther(session, claimKey, request);
    return checked;
  }

  /** The fingerprint the human reviewed; the pending call must still match it. */
  async reviewedFingerprint(
    session: AgentSessionEntity,
    request: HitlRequestView,
    pending: SubmittedCall,
  ): Promise<string> {
    const row = await this.hitl.find(request.id);
    const reviewed = row?.fingerprint ?? fingerprintOf(pending);
    if (reviewed !== fingerprintOf(pending)) {
      throw new DomainError(
        LoopActingErrorCode.TOOL_CALL_CONFLICT,
        `The pending call ${pending.id} of session ${session.id} no longer matches what was reviewed; nothing was decided: REJECT it, or close the session.`,
      );
    }
    return reviewed;
  }

  /** Under the agent's hitlReviewer ADMIN a runtime may not approve (or reject) its own calls. */
  private async assertRuntimeMayDecide(session: AgentSessionEntity): Promise<void> {
    // An agent deleted meanwhile counts as ADMIN: fail closed.
    const reviewer = await this.agents.loadAgent({ tenantId: session.tenantId }, session.agentId).then(
      (a) => a.hitlReviewer,
      () => 'ADMIN' as const,
    );
    if (reviewer === 'ADMIN') {
      throw new DomainError(
        LoopActingErrorCode.HITL_ADMIN_REVIEW_REQUIRED,
        `Agent ${session.agentId} has hitlReviewer ADMIN: an admin decides its requests with POST /api/v1/admin/hitl/${session.hitlRequest!.id}/decision; a runtime key may only continue a CHECKPOINT_PAUSE.`,
        { requestId: session.hitlRequest!.id },
      );
    }
  }

  /**
   * A claim key decides one request. Sent again after a crash that kept its response from being stored (the claim
   * taken over as stale), it must not decide the request the session waits on now: the batch it approved may have
   * stopped at another call, which nobody reviewed.
   */
  private async assertKeyDecidedNoOther(
    session: AgentSessionEntity,
    claimKey: DecisionClaimKey,
    request: HitlRequestView,
  ): Promise<void> {
    const earlier = await this.hitl.findDecidedUnder(session.id, claimKey.key);
    if (earlier && earlier.id !== request.id) {
      throw new DomainError(
        LoopActingErrorCode.HITL_ALREADY_DECIDED,
        `${claimKey.key} already decided request ${earlier.id} (${earlier.decision}) of session ${session.id}; it now waits on request ${request.id}: decide that one with a new clientMessageId.`,
        { requestId: earlier.id, pendingRequestId: request.id },
      );
    }
  }

  /**
   * Calls run only for the session's agent (a deleted one answers 404): checked before the decision is saved,
   * else the 404 came after it and left the session INTERRUPTED on a decided request that nobody could decide again.
   */
  private async assertAgentExists(session: AgentSessionEntity, request: HitlRequestView): Promise<void> {
    const found = await this.agents.loadAgent({ tenantId: session.tenantId }, session.agentId).then(
      () => true,
      (err: unknown) => {
        if (err instanceof DomainError && err.code === CommonErrorCode.NOT_FOUND) return false;
        throw err;
      },
    );
    if (!found) {
      throw new DomainError(
        CommonErrorCode.NOT_FOUND,
        `Agent ${session.agentId} of session ${session.id} was deleted: nothing can run for it, so request ${request.id} was not decided; close the session with DELETE /api/v1/sessions/${session.id}.`,
        { requestId: request.id },
      );
    }
  }

  private validate(session: AgentSessionEntity, dto: DecisionInput): CheckedDecision {
    const request = session.hitlRequest;
    const batch = session.pendingBatch;
    if (dto.requestId !== undefined && request?.id !== dto.requestId) {
      throw new DomainError(
        LoopActingErrorCode.HITL_ALREADY_DECIDED,
        `Request ${dto.requestId} is no longer pending on session ${session.id}; list pending requests with GET /api/v1/admin/hitl?status=PENDING.`,
      );
    }
    if (session.status !== 'INTERRUPTED' || !request || !batch) {
      throw new DomainError(
        LoopActingErrorCode.NO_PENDING_REQUEST,
        session.status === 'CLOSED'
          ? `Session ${session.id} is closed and waits for no decision (closing it ended its request); start a new session with POST /api/v1/sessions.`
          : `Session ${session.id} is ${session.status} and waits for no decision; submit tool calls with POST /api/v1/sessions/${session.id}/act.`,
      );
    }
    if (dto.toolCallId !== undefined && dto.toolCallId !== request.toolCallId) {
      throw new DomainError(
        LoopActingErrorCode.HITL_TOOL_CALL_MISMATCH,
        request.toolCallId === null
          ? `The pending request is a checkpoint pause, about no toolCallId (not ${dto.toolCallId}): leave toolCallId out to continue.`
          : `The pending request is about toolCallId ${request.toolCallId}, not ${dto.toolCallId}: send toolCallId ${request.toolCallId} (or leave it out) to decide it.`,
        {
          pendingToolCallId: request.toolCallId,
        },
      );
    }
    const decision = decisionFor(request.requestType, dto.decision);
    if (!decision || !ALLOWED[request.requestType].includes(decision)) {
      throw validationFailed([
        {
          field: 'decision',
          problems: [
            `a ${request.requestType} request takes ${ALLOWED[request.requestType].join(', ')}${decision ? `, not ${decision}` : ' (required)'}`,
          ],
        },
      ]);
    }
    return { request, batch, decision };
  }
}

/**
 * The decision a request takes from what was sent: the default when none was (APPROVE for a TOOL_APPROVAL, CONTINUE
 * for a CHECKPOINT_PAUSE). A pause also takes APPROVE, the contract's word for "go on", as CONTINUE: the contract
 * lists no decision of its own for a pause ("continues; approves nothing"), and an admin's decision must name one.
 */
function decisionFor(
  requestType: HitlRequestView['requestType'],
  sent: ResumeDecision | undefined,
): ResumeDecision | undefined {
  if (requestType === 'CHECKPOINT_PAUSE') return sent === undefined || sent === 'APPROVE' ? 'CONTINUE' : sent;
  return sent ?? (requestType === 'TOOL_APPROVAL' ? 'APPROVE' : undefined);
}

/** Whether a decision runs calls (through the session's agent): the approved or retried one, or those left NOT_RUN. */
function runsCalls(batch: PendingBatch, decision: ResumeDecision): boolean {
  return decision === 'APPROVE' || decision === 'RETRY' || decision === 'CONTINUE' || batch.notRun.length > 0;
}
