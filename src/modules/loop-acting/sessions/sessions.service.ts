import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { randomUUID } from 'node:crypto';
import { AgentConfigService } from '@app/modules/agent-config/agent-config.service';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import type { AuthContext } from '@app/common/auth/auth-context';
import { toIso } from '@app/database/epoch-ms.transformer';
import type { HotTransaction } from '@app/database/hot-sql';
import { AgentSessionRepository } from './agent-session.repository';
import { AgentSessionEntity } from './agent-session.entity';
import { AdminSessionDto, AdminSessionsQueryDto, CreateSessionDto, SessionDto } from './sessions.dto';
import { SessionCloseHooks } from './session-close.hooks';
import { hitlDecidedEvent } from './hitl-decided.event';
import { SandboxRunner } from '@app/modules/sandbox/sandbox-runner.service';
import { HitlRequestsRepository } from '@app/modules/hitl/requests/hitl-requests.repository';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import { pageOf, pageWindow, type Page } from '@app/common/dto/page.dto';
import { ResumeDecisionApplier, type DecidedCallOutcome } from '../acting/resume-decision.applier';
import { LoopActingErrorCode } from '../loop-acting.errors';
import type { SubmittedCall } from './session.types';

/** The reason a session's close gives for the request it ends, and for the call that request was about. */
const CLOSED_BEFORE_DECISION = 'The session was closed before a decision; nothing ran.';

/** The call a close rejected, with its journal outcome written in the close's transaction. */
interface RejectedAtClose {
  call: SubmittedCall;
  written: DecidedCallOutcome;
}

/** Creating and reading sessions; the tenant always comes from the runtime key. */
@Injectable()
export class SessionsService {
  constructor(
    private readonly sessions: AgentSessionRepository,
    private readonly agents: AgentConfigService,
    private readonly closeHooks: SessionCloseHooks,
    private readonly sandbox: SandboxRunner,
    private readonly hitl: HitlRequestsRepository,
    private readonly events: SessionEventsStore,
    private readonly decisions: ResumeDecisionApplier,
  ) {}

  /** `id`: a new session's id, random unless the caller derives it (a sub-agent task's child, from its parent call). */
  async create(auth: AuthContext, dto: CreateSessionDto, id: string = randomUUID()): Promise<SessionDto> {
    // Asking for a sandbox this gateway cannot give is refused, not silently dropped: the runtime learns why now.
    if (dto.capabilities?.includes('SANDBOX') && !this.sandbox.available())
      throw new DomainError(
        CommonErrorCode.VALIDATION_FAILED,
        `capabilities: SANDBOX is unavailable on this gateway (${this.sandbox.unavailableReason()}); create the session without it (FILE_ROOM still gives a workspace).`,
        { fields: [{ field: 'capabilities', problems: ['SANDBOX is unavailable on this gateway'] }] },
      );
    const agent = await this.agents.loadAgent({ tenantId: auth.tenantId }, dto.agentId);
    const now = Date.now();
    const row: AgentSessionEntity = {
      id,
      tenantId: agent.tenantId,
      agentId: agent.id,
      userId: dto.userId,
      permissions: dto.permissions,
      capabilities: dto.capabilities ?? [],
      status: 'ACTIVE',
      iteration: 0,
      iterationBudget: agent.maxIterations,
      hitlPending: false,
      hitlRequest: null,
      pendingBatch: null,
      todoList: [],
      activeSkill: null,
      task: dto.task
        ? { description: dto.task.description, ...(dto.task.skill ? { skill: dto.task.skill } : {}) }
        : null,
      lockVersion: 0,
      createdAt: now,
      updatedAt: now,
    };
    await this.sessions.insert(row);
    return toSessionDto(row);
  }

  async get(auth: AuthContext, id: string): Promise<SessionDto> {
    return toSessionDto(await this.load(auth, id));
  }

  /**
   * Closes the session (DELETE /sessions/{id}): status CLOSED, any pending HITL request dropped from the session,
   * a later `act` answers 409 SESSION_CLOSED; then the close hooks run (the workspace is removed).
   * Closing a closed session answers it as it is, after running the close hooks again: a close whose process died
   * before them (its client got no answer and asks again) left its workspace and its sub-agent children open.
   */
  async close(auth: AuthContext, id: string): Promise<SessionDto> {
    return toSessionDto((await this.closeWhen(auth, id, () => true))!);
  }

  /**
   * Closes the session as {@link close} does if it is ACTIVE or INTERRUPTED and unchanged since before `idleBefore`
   * (epoch ms), checked again at the close's compare-and-set: an act that lands meanwhile keeps it open. Whether it
   * closed it.
   */
  async closeIdle(auth: AuthContext, id: string, idleBefore: number): Promise<boolean> {
    const idle = (row: AgentSessionEntity) =>
      (row.status === 'ACTIVE' || row.status === 'INTERRUPTED') && row.updatedAt < idleBefore;
    const row = await this.closeWhen(auth, id, idle, idleBefore);
    return row !== null;
  }

  /**
   * The close's loop; null when `shouldClose` refused the session as it was last read. `updatedBefore`: the close's
   * compare-and-set also needs the session unchanged since then (an act marks it changed without a version bump).
   */
  private async closeWhen(
    auth: AuthContext,
    id: string,
    shouldClose: (row: AgentSessionEntity) => boolean,
    updatedBefore?: number,
  ): Promise<AgentSessionEntity | null> {
    for (;;) {
      const row = await this.load(auth, id);
      if (!shouldClose(row)) return null;
      if (row.status === 'CLOSED') {
        await this.closeHooks.closed({ tenantId: row.tenantId, id: row.id });
        return row;
      }
      const changes = { status: 'CLOSED' as const, hitlPending: false, hitlRequest: null, pendingBatch: null };
      // The request it waited for can no longer be decided (the session waits for nothing): it leaves the queue, in
      // the close's transaction (after it, a process that died between the two left it PENDING for good), and so is
      // its hitl.decided (kept there, a process killed after the commit leaves it for the outbox round to write).
      // A call the close's REJECT ends gets its journal outcome there too, as a resume's REJECT writes it.
      const decidedBy = `session closed (key ${auth.keyId})`;
      let rejected: RejectedAtClose | undefined;
      const endRequest = row.hitlRequest
        ? async (tx: HotTransaction) => {
            const ended = await this.endPendingRequest(row, decidedBy, tx.manager);
            if (!ended) return;
            await this.events.append(
              hitlDecidedEvent(row, row.hitlRequest!, ended.decision, ended.decidedBy),
              tx.manager,
            );
            if (ended.byThisClose) rejected = await this.rejectPendingCall(row, tx);
          }
        : undefined;
      if (await this.sessions.compareAndSet(id, row.lockVersion, changes, endRequest, updatedBefore)) {
        // Its tool-log row before the hooks (a workspace to remove may take a while), as close to the commit as can be.
        if (rejected)
          await this.decisions.report(row, rejected.call, 'REJECT', CLOSED_BEFORE_DECISION, rejected.written);
        await this.closeHooks.closed({ tenantId: row.tenantId, id: row.id });
        return { ...row, ...changes, lockVersion: row.lockVersion + 1, updatedAt: Date.now() };
      }
    }
  }

  /**
   * The journal outcome of the call the closed session's approval request was about (REJECTED: it never started),
   * written in the close's transaction. Only for TOOL_APPROVAL: a checkpoint pause has no call, and the call of an
   * UNKNOWN_OUTCOME request started and may have taken effect (the dead-owner sweep ends it as OUTCOME_UNKNOWN, which
   * a close, nobody's judgement of it, must not turn into "not run").
   */
  private async rejectPendingCall(row: AgentSessionEntity, tx: HotTransaction): Promise<RejectedAtClose | undefined> {
    const batch = row.pendingBatch;
    if (row.hitlRequest?.requestType !== 'TOOL_APPROVAL' || !batch?.pending) return undefined;
    try {
      const written = await this.decisions.writeOutcome(
        row,
        batch.iteration,
        batch.pending,
        batch.pendingToolId ?? null,
        'REJECT',
        CLOSED_BEFORE_DECISION,
        tx,
      );
      return { call: batch.pending, written };
    } catch (err) {
      if (err instanceof DomainError && err.code === LoopActingErrorCode.TOOL_CALL_IN_PROGRESS) return undefined;
      throw err;
    }
  }

  /**
   * The request a closed session waited for leaves the queue: nobody can decide it any more, nothing of it runs.
   * Returns the decision it ends with, for its `hitl.decided`: REJECT by the close, or the one a resume or an admin
   * saved and nothing carried out (that one died first; it may not have reported it either: the once-key keeps it
   * once).
   */
  private async endPendingRequest(
    row: AgentSessionEntity,
    decidedBy: string,
    manager: EntityManager,
  ): Promise<{ decision: string; decidedBy: string; byThisClose: boolean } | null> {
    const id = row.hitlRequest!.id;
    const rejected = await this.hitl.decide(
      id,
      {
        decision: 'REJECT',
        decisionMessage: CLOSED_BEFORE_DECISION,
        decidedBy,
        clientMessageId: `session-closed:${row.id}`,
      },
      manager,
    );
    if (rejected) return { decision: 'REJECT', decidedBy, byThisClose: true };
    const saved = await this.hitl.find(id, manager);
    return saved?.status === 'DECIDED' && saved.decision
      ? { decision: saved.decision, decidedBy: saved.decidedBy ?? '', byThisClose: false }
      : null;
  }

  /** Sessions for an admin: of the key's tenant (every tenant for the platform key), newest first. */
  async list(auth: AuthContext, query: AdminSessionsQueryDto): Promise<Page<AdminSessionDto>> {
    const [rows, total] = await this.sessions.list({
      tenantId: auth.tenantId ?? query.tenantId,
      status: query.status,
      agentId: query.agentId,
      ...pageWindow(query),
    });
    return pageOf(
      rows.map((r) => ({ tenantId: r.tenantId, capabilities: r.capabilities, ...toSessionDto(r) })),
      total,
      query,
    );
  }

  /** The session if it belongs to the caller's tenant (otherwise 404, as if it did not exist). */
  async load(auth: Pick<AuthContext, 'tenantId'>, id: string): Promise<AgentSessionEntity> {
    return this.inScope(auth, id, await this.sessions.find(id));
  }

  /** `row` (session `id` as read) if it belongs to the caller's tenant, otherwise 404 as if it did not exist. */
  inScope(auth: Pick<AuthContext, 'tenantId'>, id: string, row: AgentSessionEntity | null): AgentSessionEntity {
    if (!row || (auth.tenantId !== null && row.tenantId !== auth.tenantId)) {
      throw new DomainError(
        CommonErrorCode.NOT_FOUND,
        `No session ${id} in your tenant; create one with POST /api/v1/sessions.`,
      );
    }
    return row;
  }
}

function toSessionDto(s: AgentSessionEntity): SessionDto {
  return {
    id: s.id,
    agentId: s.agentId,
    userId: s.userId,
    status: s.status,
    iteration: s.iteration,
    hitlPending: s.hitlPending,
    hitlRequest: s.hitlRequest,
    todoList: s.todoList,
    activeSkill: s.activeSkill,
    task: s.task,
    createdAt: toIso(s.createdAt)!,
    updatedAt: toIso(s.updatedAt)!,
  };
}
