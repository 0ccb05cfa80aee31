import { Injectable } from '@nestjs/common';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import type { AuthContext } from '@app/common/auth/auth-context';
import { HitlRequestsRepository } from '@app/modules/hitl/requests/hitl-requests.repository';
import { SessionsService } from '../sessions/sessions.service';
import { LoopActingErrorCode } from '../loop-acting.errors';
import type { ActResponse } from './act.types';
import type { HitlDecisionDto } from './hitl-decision.dto';
import { ResumeService } from './resume.service';
import { bindLogFields, type LogFields } from '@app/common/logging/log-context';

/**
 * The idempotency key of an admin decision: the request itself (one decision per request), claimed in the
 * session's `resume_record`s (so retention removes it with the session) under a clientMessageId prefix that
 * runtime resumes may not use.
 */
const ADMIN_DECISION_PREFIX = 'admin-decision:';
const claimKeyOf = (sessionId: string, requestId: string) => ({
  scope: sessionId,
  key: `${ADMIN_DECISION_PREFIX}${requestId}`,
});

/**
 * `POST /admin/hitl/{id}/decision`: an admin decides a pending request through the resume service (the one
 * way to decide). The same decision again → the stored response, nothing runs twice; another decision on a
 * request already decided (by anyone) → 409 HITL_ALREADY_DECIDED. The same decision as one a runtime's resume saved
 * but died before carrying out (the session still waits on the request) carries that decision out.
 */
@Injectable()
export class HitlDecisionService {
  constructor(
    private readonly requests: HitlRequestsRepository,
    private readonly sessions: SessionsService,
    private readonly resumes: ResumeService,
  ) {}

  /** `log`: the request's log fields (they get the session), handed to the lines of the calls the decision runs. */
  async decide(auth: AuthContext, requestId: string, dto: HitlDecisionDto, log?: LogFields): Promise<ActResponse> {
    const request = await this.requests.findInScope(requestId, auth.tenantId);
    if (!request)
      throw new DomainError(
        CommonErrorCode.NOT_FOUND,
        `No HITL request ${requestId} in your tenant; list them with GET /api/v1/admin/hitl.`,
      );
    const claimKey = claimKeyOf(request.sessionId, request.id);
    // The same decision goes on: its stored response, or (saved by a resume or decision that died before carrying it
    // out, the session still waiting) it is carried out; a request no longer pending is refused there.
    if (request.status === 'DECIDED' && request.decision !== dto.decision) {
      throw new DomainError(
        LoopActingErrorCode.HITL_ALREADY_DECIDED,
        `Request ${request.id} was already decided: ${request.decision} by ${request.decidedBy}; nothing is left to decide on it: list the pending requests with GET /api/v1/admin/hitl?status=PENDING.`,
        {
          decision: request.decision,
          decidedBy: request.decidedBy,
        },
      );
    }
    bindLogFields(log, { sessionId: request.sessionId });
    const session = await this.sessions.load({ tenantId: request.tenantId }, request.sessionId);
    return this.resumes.decide(
      session,
      claimKey,
      { decision: dto.decision, message: dto.message, requestId: request.id },
      { role: 'admin', decidedBy: `${dto.reviewer} (key ${auth.keyId})`, log },
    );
  }
}
