import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import type { AuthContext } from '@app/common/auth/auth-context';
import { HitlDecisionRecord, HitlRequestsRepository } from '@app/modules/hitl/requests/hitl-requests.repository';
import type { HitlRequestEntity } from '@app/modules/hitl/requests/hitl-request.entity';
import { ToolRegistryService } from '@app/modules/tool-registry/tool-registry.service';
import { AgentConfigService } from '@app/modules/agent-config/agent-config.service';
import { SessionsService } from '../sessions/sessions.service';
import { AgentSessionRepository } from '../sessions/agent-session.repository';
import { SessionCloseHooks } from '../sessions/session-close.hooks';
import type { AgentSessionEntity } from '../sessions/agent-session.entity';
import type { HitlRequestView, PendingBatch } from '../sessions/session.types';
import { hitlDecidedEvent } from '../sessions/hitl-decided.event';
import { LoopActingErrorCode } from '../loop-acting.errors';
import type { ResumeDecision, ResumeDto } from '../sessions/sessions.dto';
import type { ActResponse } from './act.types';
import type { BatchContext } from './acting.types';
import { BatchRunner, notRunResult } from './batch-runner';
import { ResumeRecordRepository } from './resume-record.repository';
import { ResumeClaimRenewer } from './resume-claim.renewer';
import { type DecidedCallOutcome, ResumeDecisionApplier } from './resume-decision.applier';
import { ResumeDecisionChecks } from './resume-decision.checks';
import { toolOfEntry } from './call-interrupts';
import { bindLogFields, type LogFields } from '@app/common/logging/log-context';
import type { HotStatements, HotTransaction } from '@app/database/hot-sql';

/** The journal outcome of a call a decision ends without running it, written in the decision's transaction. */
interface CallEnding {
  write(tx: HotTransaction): Promise<void>;
  written?: DecidedCallOutcome;
}

/** The resume record a decision is claimed under: (session_id, client_message_id) of `resume_record`. */
export interface DecisionClaimKey {
  scope: string;
  key: string;
}

/** One decision on the pending request, as a runtime's resume or an admin's decision states it. */
export interface DecisionInput {
  decision?: ResumeDecision;
  message?: string;
  toolCallId?: string;
  /** An admin decides one request by id: it must still be the session's pending one. */
  requestId?: string;
}

/** Who decides: recorded as the request's decidedBy; a runtime is bound by the agent's hitlReviewer. */
export interface Decider {
  role: 'runtime' | 'admin';
  decidedBy: string;
  /** The log fields of the request that decides: the lines of the calls it lets run carry them. */
  log?: LogFields;
}

/**
 * One human decision on the pending request, the one way to decide (`POST /sessions/{id}/resume` and
 * `POST /admin/hitl/{id}/decision`). The claim key is claimed first and the decision persisted (who, when,
 * on which fingerprint) before anything it allows runs; a repeated claim key gets the stored response and
 * runs nothing.
 */
@Injectable()
export class ResumeService {
  constructor(
    private readonly sessions: SessionsService,
    private readonly sessionRepo: AgentSessionRepository,
    private readonly records: ResumeRecordRepository,
    private readonly claims: ResumeClaimRenewer,
    private readonly hitl: HitlRequestsRepository,
    private readonly batches: BatchRunner,
    private readonly decisions: ResumeDecisionApplier,
    private readonly checks: ResumeDecisionChecks,
    private readonly tools: ToolRegistryService,
    private readonly agents: AgentConfigService,
    private readonly events: SessionEventsStore,
    private readonly closeHooks: SessionCloseHooks,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** `log`: the request's log fields (they get the session). */
  async resume(auth: AuthContext, sessionId: string, dto: ResumeDto, log?: LogFields): Promise<ActResponse> {
    bindLogFields(log, { sessionId });
    const session = await this.sessions.load(auth, sessionId);
    return this.decide(session, { scope: session.id, key: dto.clientMessageId }, dto, {
      role: 'runtime',
      decidedBy: `runtime (key ${auth.keyId})`,
      log,
    });
  }

  async decide(
    session: AgentSessionEntity,
    claimKey: DecisionClaimKey,
    input: DecisionInput,
    decider: Decider,
  ): Promise<ActResponse> {
    const claim = await this.records.claim(claimKey.scope, claimKey.key, this.config.journalLeaseMs);
    if (claim.kind === 'done') return claim.response;
    if (claim.kind === 'running') {
      throw new DomainError(
        LoopActingErrorCode.RESUME_IN_PROGRESS,
        `A decision under ${claimKey.key} is still running; send it again shortly to get its response.`,
      );
    }
    return this.claims.hold(claimKey.scope, claimKey.key, claim.at, (lastHeartbeat) =>
      this.decideClaimed(session, claimKey, input, decider, lastHeartbeat),
    );
  }

  /** The decision under a claim this request holds (renewed while it works, so a repeat waits for its response). */
  private async decideClaimed(
    session: AgentSessionEntity,
    claimKey: DecisionClaimKey,
    input: DecisionInput,
    decider: Decider,
    lastHeartbeat: () => Promise<number>,
  ): Promise<ActResponse> {
    let decided = false;
    try {
      const carriedOut = await this.outcomeCarriedOut(session, input);
      if (carriedOut) {
        decided = true;
        await this.records.complete(claimKey.scope, claimKey.key, carriedOut);
        return carriedOut;
      }
      const { request, batch, decision } = await this.checks.beforeSaving(session, claimKey, input, decider);
      // The journal's refusals (a toolCallId used meanwhile for other arguments, or still running) come before the
      // decision is saved: after it, they left the session waiting on a decided request for good. The pending call is
      // checked for every decision: a REJECT or MARK_DONE of a call whose owner is back and still running it would
      // overwrite the outcome it is about to record.
      await this.batches.preflight(
        { session, iteration: batch.iteration, entry: 'RESUME', freshSince: performance.now() },
        batch.pending ? [batch.pending, ...batch.notRun] : batch.notRun,
      );
      const ending = this.callEnding(session, request, batch, decision, input.message);
      decided = await this.persistDecision(
        session,
        request,
        {
          decision,
          decisionMessage: input.message ?? null,
          decidedBy: decider.decidedBy,
          clientMessageId: claimKey.key,
        },
        ending,
      );
      if (!decided) {
        const saved = await this.hitl.find(request.id);
        if (saved?.status === 'DECIDED' && saved.clientMessageId && saved.clientMessageId !== claimKey.key)
          return await this.carryOutSaved(session, claimKey, request, batch, decision, saved, decider.log, () => {
            decided = true;
          });
        throw new DomainError(
          LoopActingErrorCode.HITL_ALREADY_DECIDED,
          `The pending request ${request.id} was already decided by another resume or decision, or the session was closed meanwhile; read the session with GET /api/v1/sessions/${session.id}.`,
        );
      }
      // The response is stored with the session's move: on by finish(), or to the next request by the batch.
      return await this.apply(session, [claimKey], request, batch, decision, input.message, ending, decider.log);
    } catch (err) {
      // Nothing was decided: free the claim so a corrected request can use it.
      if (!decided) await this.records.release(claimKey.scope, claimKey.key, await lastHeartbeat());
      throw err;
    }
  }

  /**
   * The outcome of the same decision, already carried out, on a call the session no longer waits on: its resume died
   * after saving the decision and the gateway carried it out (AbandonedDecisionJob), or another resume did, and this
   * caller lost the key it was saved under. Answered with that decision's stored response (the call ran once), not
   * refused as if nothing were pending. Another decision, or a call still pending, goes the usual way.
   */
  private async outcomeCarriedOut(session: AgentSessionEntity, input: DecisionInput): Promise<ActResponse | undefined> {
    const { toolCallId, decision } = input;
    if (!toolCallId || !decision) return undefined;
    if (session.status === 'INTERRUPTED' && session.hitlRequest?.toolCallId === toolCallId) return undefined;
    const saved = await this.hitl.findLatestDecidedFor(session.id, toolCallId);
    if (!saved?.clientMessageId || saved.decision !== decision) return undefined;
    if (input.requestId !== undefined && saved.id !== input.requestId) return undefined;
    return this.records.findResponse(session.id, saved.clientMessageId);
  }

  /**
   * The request was decided under another claim key, but the session still waits on it: that resume (or admin
   * decision) died after saving the decision, and its caller may have lost the key. A decision equal to the saved one
   * carries it out (with the saved message) under the saved key's claim, taken over once stale, and stores the
   * response under both keys. Another decision is refused; a saved key whose claim is alive is still carrying it out.
   * `onClaimed`: called once the saved decision is this request's to carry out (from then on, the claim is kept).
   */
  private async carryOutSaved(
    session: AgentSessionEntity,
    claimKey: DecisionClaimKey,
    request: HitlRequestView,
    batch: PendingBatch,
    decision: ResumeDecision,
    saved: HitlRequestEntity,
    log: LogFields | undefined,
    onClaimed: () => void,
  ): Promise<ActResponse> {
    const savedKey = { scope: claimKey.scope, key: saved.clientMessageId! };
    if (saved.decision !== decision) {
      throw new DomainError(
        LoopActingErrorCode.HITL_ALREADY_DECIDED,
        `Request ${request.id} was already decided ${saved.decision} by ${saved.decidedBy}; that decision stands. Resume with decision ${saved.decision} (any clientMessageId) to get its outcome.`,
        { requestId: request.id, decision: saved.decision, decidedBy: saved.decidedBy },
      );
    }
    const claim = await this.records.claim(savedKey.scope, savedKey.key, this.config.journalLeaseMs);
    if (claim.kind === 'running') {
      throw new DomainError(
        LoopActingErrorCode.RESUME_IN_PROGRESS,
        `Request ${request.id} was decided ${decision} under ${savedKey.key}, which is carrying it out now; send this again shortly to get its outcome.`,
      );
    }
    if (claim.kind === 'done') {
      onClaimed();
      await this.records.complete(claimKey.scope, claimKey.key, claim.response);
      return claim.response;
    }
    return this.claims.hold(savedKey.scope, savedKey.key, claim.at, async (lastHeartbeat) => {
      // Still waiting on the same decided request (not closed meanwhile): checked with the session's compare-and-set.
      const message = saved.decisionMessage ?? undefined;
      const ending = this.callEnding(session, request, batch, decision, message);
      const still = await this.persistDecision(
        session,
        request,
        {
          decision,
          decisionMessage: saved.decisionMessage,
          decidedBy: saved.decidedBy ?? '',
          clientMessageId: savedKey.key,
        },
        ending,
      );
      if (!still) {
        await this.records.release(savedKey.scope, savedKey.key, await lastHeartbeat());
        throw new DomainError(
          LoopActingErrorCode.HITL_ALREADY_DECIDED,
          `Session ${session.id} no longer waits on request ${request.id} (it was closed or moved on meanwhile); read it with GET /api/v1/sessions/${session.id}.`,
        );
      }
      onClaimed();
      return this.apply(session, [claimKey, savedKey], request, batch, decision, message, ending, log);
    });
  }

  /**
   * Saves the decision on the request in one transaction with a compare-and-set of the session as this decision read
   * it: a session closed meanwhile (its close ends the request) is not decided, and nothing of it runs.
   *
   * The request's `hitl.decided` is kept in that transaction, before anything of the decision is carried out: a process
   * killed after the commit leaves it for the outbox round, so a runtime replaying the stream learns of the decision
   * even while nothing carries it out. Every path that carries a decision out saves it here again (the resume that
   * saved it, the same key or a new one after that one died, the recovery job): the event's once-key keeps one.
   * So is the journal outcome of a call the decision ends without running it (`ending`: REJECT, MARK_DONE), so that a
   * close landing right after the commit cannot leave that call without one.
   *
   * A request already decided by another resume or decision is not this one's to save: the transaction is rolled back,
   * the session's version with it. Committed, that version's move made the decision that did save it (carrying it out
   * at that moment, on this instance or another) fail to move the session on once its calls had run: 409
   * CONCURRENT_MODIFICATION, the result reaching no one and the session left waiting on a request carried out.
   */
  private async persistDecision(
    session: AgentSessionEntity,
    request: HitlRequestView,
    record: HitlDecisionRecord,
    ending: CallEnding | undefined,
  ): Promise<boolean> {
    const notDecided = new Error(`request ${request.id} was decided by another resume or decision`);
    let moved: boolean;
    try {
      moved = await this.sessionRepo.compareAndSet(session.id, session.lockVersion, {}, async (tx) => {
        if (!(await this.hitl.decide(request.id, record, tx.manager))) throw notDecided;
        await ending?.write(tx);
        await this.events.append(hitlDecidedEvent(session, request, record.decision, record.decidedBy), tx.manager);
      });
    } catch (err) {
      if (err === notDecided) return false;
      throw err;
    }
    if (moved) session.lockVersion += 1;
    return moved;
  }

  /**
   * A REJECT or MARK_DONE of the pending call: its journal outcome, to be written with the decision; undefined for a
   * decision that runs the call (APPROVE, RETRY) or a CHECKPOINT_PAUSE.
   */
  private callEnding(
    session: AgentSessionEntity,
    request: HitlRequestView,
    batch: PendingBatch,
    decision: ResumeDecision,
    message: string | undefined,
  ): CallEnding | undefined {
    const pending = batch.pending;
    if (request.requestType === 'CHECKPOINT_PAUSE' || !pending || (decision !== 'REJECT' && decision !== 'MARK_DONE'))
      return undefined;
    const ending: CallEnding = {
      write: async (tx) => {
        const toolId = batch.pendingToolId ?? null;
        ending.written = await this.decisions.writeOutcome(
          session,
          batch.iteration,
          pending,
          toolId,
          decision,
          message,
          tx,
        );
      },
    };
    return ending;
  }

  /**
   * `claimKeys`: the keys the response is stored under (each gets it back when sent again). `log`: the deciding
   * request's log fields, for the lines of the calls the decision runs.
   */
  private async apply(
    session: AgentSessionEntity,
    claimKeys: DecisionClaimKey[],
    request: HitlRequestView,
    batch: PendingBatch,
    decision: ResumeDecision,
    message: string | undefined,
    ending: CallEnding | undefined,
    log: LogFields | undefined,
  ): Promise<ActResponse> {
    const store = async (response: ActResponse, tx?: HotStatements) => {
      for (const k of claimKeys) await this.records.complete(k.scope, k.key, response, tx);
    };
    const ctx: BatchContext = {
      session,
      iteration: batch.iteration,
      entry: 'RESUME',
      freshSince: performance.now(),
      storeResponse: store,
      log,
    };
    if (request.requestType === 'CHECKPOINT_PAUSE') {
      // Another maxIterations from here (the agent's current setting, so the budget never compounds).
      const agent = await this.agents.loadAgent({ tenantId: session.tenantId }, session.agentId);
      // Closed meanwhile, the session is not moved: its calls then answer NOT_RUN (a closed session starts none).
      await this.moveUnlessClosed(session, { iterationBudget: batch.iteration + agent.maxIterations });
      return this.finish(session, store, await this.batches.run(ctx, batch.notRun, null));
    }
    const pending = batch.pending!;
    if (decision === 'APPROVE' || decision === 'RETRY') {
      const grant = {
        toolCallId: pending.id,
        fingerprint: await this.checks.reviewedFingerprint(session, request, pending),
        toolId: batch.pendingToolId ?? null,
        mode: decision,
      };
      return this.finish(session, store, await this.batches.run(ctx, [pending, ...batch.notRun], grant));
    }
    // Written with the decision (persistDecision), which every path saves before carrying it out.
    if (!ending?.written)
      throw new Error(`The outcome of ${decision} on ${pending.id} was not written with the decision`);
    const decided = await this.decisions.report(session, pending, decision, message, ending.written);
    if (decided.status === 'REJECTED' && (await this.rejectPolicyOf(session, batch)) === 'ABORT_SESSION') {
      const response: ActResponse = {
        status: 'COMPLETED',
        results: [decided, ...batch.notRun.map((c) => notRunResult(c, null))],
      };
      return this.finish(session, store, response, true);
    }
    return this.finish(session, store, await this.batches.run(ctx, batch.notRun, null, [decided]));
  }

  /**
   * The final session state: INTERRUPTED again (already written by the batch, with the response), CLOSED
   * (ABORT_SESSION: closed as by DELETE /sessions/{id}, its close hooks included, e.g. the workspace removed), or
   * ACTIVE. The response is stored in the transaction that moves the session on: a process that died after it left a
   * repeat nothing to decide, and the answer lost. A session closed meanwhile (DELETE /sessions/{id}: the batch
   * finished the call it was in and started no other) is not moved: the response is what ran, stored all the same.
   */
  private async finish(
    session: AgentSessionEntity,
    store: (response: ActResponse, tx?: HotStatements) => Promise<void>,
    response: ActResponse,
    close = false,
  ): Promise<ActResponse> {
    if (response.status === 'INTERRUPTED') return response;
    const changes: Partial<AgentSessionEntity> = {
      status: close ? 'CLOSED' : 'ACTIVE',
      hitlPending: false,
      hitlRequest: null,
      pendingBatch: null,
    };
    if (await this.moveUnlessClosed(session, changes, (tx) => store(response, tx))) {
      if (close) await this.closeHooks.closed({ tenantId: session.tenantId, id: session.id });
    } else {
      await store(response);
    }
    return response;
  }

  /**
   * Moves the session on (compare-and-set on its lock version, `alongside` in the same transaction): true when moved,
   * false when another request closed it meanwhile (DELETE /sessions/{id}); any other change is a 409.
   */
  private async moveUnlessClosed(
    session: AgentSessionEntity,
    changes: Partial<AgentSessionEntity>,
    alongside?: (tx: HotTransaction) => Promise<void>,
  ): Promise<boolean> {
    if (await this.sessionRepo.compareAndSet(session.id, session.lockVersion, changes, alongside)) {
      session.lockVersion += 1;
      Object.assign(session, changes);
      return true;
    }
    if (await this.sessionRepo.isClosed(session.id)) return false;
    throw new DomainError(
      CommonErrorCode.CONCURRENT_MODIFICATION,
      `Session ${session.id} was changed by another request during this resume; read it and try again.`,
    );
  }

  /** The rejectPolicy of the tool the pending call was made to: found by its id, as its name may have changed since. */
  private async rejectPolicyOf(session: AgentSessionEntity, batch: PendingBatch): Promise<string> {
    const tool = await toolOfEntry(
      { toolId: batch.pendingToolId ?? null, toolName: batch.pending!.name, tenantId: session.tenantId },
      this.tools,
    );
    return tool?.hitl?.rejectPolicy ?? 'RETURN_ERROR';
  }
}
