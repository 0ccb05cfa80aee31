import { Inject, Injectable, Logger } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { HitlRequestsRepository } from '@app/modules/hitl/requests/hitl-requests.repository';
import { AgentSessionRepository } from '../sessions/agent-session.repository';
import type { ResumeDecision } from '../sessions/sessions.dto';
import { ResumeRecordRepository } from './resume-record.repository';
import { ResumeService } from './resume.service';

/** Most abandoned decisions one round carries out; the rest wait for the next round. */
const RECOVERY_BATCH = 20;

/**
 * Carries out the decisions a resume or an admin decision saved and then died before carrying out (its claim no longer
 * renewed for JOURNAL_LEASE_MS, the session still INTERRUPTED on the request it decided). Without this the session
 * waited until someone sent the decision again, and an admin queue showed the request DECIDED with nothing to say it
 * was not carried out. It goes the way a runtime sending the same clientMessageId again goes (the saved key's claim
 * taken over as stale, the decision's own idempotency, the session's compare-and-set), so a resume sent meanwhile
 * either gets the stored response or `RESUME_IN_PROGRESS`, and nothing runs twice.
 */
@Injectable()
export class AbandonedDecisionRecovery {
  private readonly logger = new Logger(AbandonedDecisionRecovery.name);
  /** Decisions whose failure was logged: tried again every round, warned about once while they stay abandoned. */
  private readonly warned = new Set<string>();

  constructor(
    private readonly records: ResumeRecordRepository,
    private readonly sessions: AgentSessionRepository,
    private readonly requests: HitlRequestsRepository,
    private readonly resumes: ResumeService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** One round; returns how many saved decisions it carried out. */
  async carryOut(now = Date.now()): Promise<number> {
    const abandoned = await this.records.findAbandonedDecisions(now - this.config.journalLeaseMs, RECOVERY_BATCH);
    const listed = new Set(abandoned.map(({ sessionId, key }) => `${sessionId} ${key}`));
    for (const seen of this.warned) if (!listed.has(seen)) this.warned.delete(seen);
    let carriedOut = 0;
    for (const { sessionId, key } of abandoned) {
      // One decision that cannot be carried out must not stop the others.
      if (await this.carryOutOne(sessionId, key).catch((err: unknown) => this.failed(sessionId, key, err)))
        carriedOut++;
    }
    return carriedOut;
  }

  private async carryOutOne(sessionId: string, key: string): Promise<boolean> {
    const [session, saved] = await Promise.all([
      this.sessions.find(sessionId),
      this.requests.findDecidedUnder(sessionId, key),
    ]);
    if (!session || !saved?.decision || session.status !== 'INTERRUPTED' || session.hitlRequest?.id !== saved.id)
      return false;
    const response = await this.resumes.decide(
      session,
      { scope: sessionId, key },
      { decision: saved.decision as ResumeDecision, message: saved.decisionMessage ?? undefined, requestId: saved.id },
      // Judged as an admin's decision (the saved one stands, whoever made it); its decidedBy is kept as saved.
      { role: 'admin', decidedBy: saved.decidedBy ?? '' },
    );
    this.logger.warn(
      `Carried out decision ${saved.decision} on request ${saved.id} of session ${sessionId}, saved under ${key} by a resume or decision that stopped before carrying it out; the session is ${response.status} now.`,
    );
    return true;
  }

  private failed(sessionId: string, key: string, err: unknown): false {
    if (this.warned.has(`${sessionId} ${key}`)) return false;
    this.warned.add(`${sessionId} ${key}`);
    this.logger.warn(
      `The decision saved under ${key} on session ${sessionId} was not carried out (tried again every round, logged once): ${(err as Error).message}`,
    );
    return false;
  }
}
