import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import type { AuthContext } from '@app/common/auth/auth-context';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { isUniqueViolation } from '@app/database/unique-violation';
import { toIso } from '@app/database/epoch-ms.transformer';
import { SessionsService } from '@app/modules/loop-acting/sessions/sessions.service';
import { AgentSessionRepository } from '@app/modules/loop-acting/sessions/agent-session.repository';
import type { AgentSessionEntity } from '@app/modules/loop-acting/sessions/agent-session.entity';
import { LoopActingErrorCode } from '@app/modules/loop-acting/loop-acting.errors';
import { AgentConfigService } from '@app/modules/agent-config/agent-config.service';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import { AgentRunEntity, newQueuedRun } from './agent-run.entity';
import { AgentRunsRepository } from './agent-runs.repository';
import { AgentMessagesRepository } from './agent-messages.repository';
import { AgentRunNotifier } from './agent-run.notifier';
import { messageEventData } from './agent-run.message-event';
import { AgentRunsErrorCode } from './agent-runs.errors';
import { STOPPED_RUN_STATUSES, type RunView } from './agent-runs.types';
import type { MessagePageDto, MessagesQueryDto, PostMessageDto } from './agent-runs.dto';
import { withAnySignal } from '@app/common/abort-race';

/** Longest a `wait: true` request is held; a run still going then is answered 202 as without `wait`. */
const MAX_WAIT_MS = 300_000;

/**
 * `POST /sessions/{id}/messages` starts a run (the user's message, the run and the session's RUNNING status in
 * one transaction; the same clientMessageId again finds the same run), and reads of runs and messages. The runs
 * themselves are worked by the AgentRunWorker of whichever instance claims them.
 */
@Injectable()
export class AgentRunsService implements OnModuleDestroy {
  /**
   * Aborted when this instance shuts down: a `wait: true` request is then answered at once (202, the run goes on, on
   * any instance) instead of being held until SHUTDOWN_GRACE_MS and cut without an answer.
   */
  private readonly stopping = new AbortController();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly runs: AgentRunsRepository,
    private readonly messages: AgentMessagesRepository,
    private readonly sessions: SessionsService,
    private readonly sessionRepo: AgentSessionRepository,
    private readonly agents: AgentConfigService,
    private readonly events: SessionEventsStore,
    private readonly notifier: AgentRunNotifier,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  onModuleDestroy(): void {
    this.stopping.abort();
  }

  /**
   * `signal`: the client's; a `wait: true` request whose client went away stops waiting (the run goes on), as does
   * one in flight when this instance shuts down (answered 202).
   * @returns the run's view and whether it has stopped (200) or is still going (202).
   */
  async post(
    auth: AuthContext,
    sessionId: string,
    dto: PostMessageDto,
    signal?: AbortSignal,
  ): Promise<{ stopped: boolean; run: RunView }> {
    const session = await this.sessions.load(auth, sessionId);
    let run =
      (await this.runs.findByMessage(session.id, dto.clientMessageId)) ??
      (await this.startRun(session, dto.clientMessageId, dto.content));
    if (dto.wait) {
      const waited = run;
      run = await withAnySignal([signal, this.stopping.signal], (until) =>
        this.waitForStop(waited, MAX_WAIT_MS, until),
      );
    }
    const now =
      run.status === 'INTERRUPTED' || run.status === 'PAUSED' ? await this.sessions.load(auth, sessionId) : session;
    const view = toRunView(run, now);
    return { stopped: STOPPED_RUN_STATUSES.includes(view.status), run: view };
  }

  async get(auth: AuthContext, sessionId: string, runId: string): Promise<RunView> {
    const session = await this.sessions.load(auth, sessionId);
    const run = await this.runs.find(runId);
    if (!run || run.sessionId !== sessionId) {
      throw new DomainError(
        CommonErrorCode.NOT_FOUND,
        `No run ${runId} in session ${sessionId}; use the runId that POST /api/v1/sessions/${sessionId}/messages answered.`,
      );
    }
    return toRunView(run, session);
  }

  async conversation(auth: AuthContext, sessionId: string, query: MessagesQueryDto): Promise<MessagePageDto> {
    await this.sessions.load(auth, sessionId);
    const after = query.after ?? 0;
    const rows = await this.messages.conversation(sessionId, after, query.limit ?? 500);
    const items = rows.map((m) => ({
      seq: m.seq,
      runId: m.runId,
      role: m.role,
      content: m.content,
      // A call's extraContent (a provider's thought signature) is for the provider only.
      ...(m.toolCalls && { toolCalls: m.toolCalls.map(({ extraContent: _, ...call }) => call) }),
      ...(m.toolCallId && { toolCallId: m.toolCallId }),
      createdAt: toIso(m.createdAt)!,
    }));
    return { items, nextAfter: items.length > 0 ? items[items.length - 1].seq : after };
  }

  /**
   * Starts a run of `session` with the user's message `content` (a message request, or a sub-agent task);
   * the same clientMessageId again returns its run. `alongside` writes what must exist with the run (a sub-agent
   * task's row) in the run's transaction; `admit`, first in that transaction, may refuse the run by throwing (a
   * limit checked under the transaction's lock, so concurrent starts cannot all pass it).
   */
  async startRun(
    session: AgentSessionEntity,
    clientMessageId: string,
    content: string,
    alongside?: (m: EntityManager, run: AgentRunEntity) => Promise<void>,
    admit?: (m: EntityManager) => Promise<void>,
  ): Promise<AgentRunEntity> {
    const dto = { clientMessageId, content };
    // A closed session is final: say so before anything that could be fixed on the agent.
    if (session.status === 'CLOSED') throw notActiveError(session);
    const agent = await this.agents.loadAgent({ tenantId: session.tenantId }, session.agentId);
    if (!agent.modelProviderId) {
      throw new DomainError(
        AgentRunsErrorCode.AGENT_HAS_NO_MODEL,
        `Agent ${agent.name} has no model provider, so the gateway cannot run it; set modelProviderId with PATCH /api/v1/admin/agents/${agent.id}.`,
      );
    }
    const now = Date.now();
    const run = newQueuedRun(
      {
        id: randomUUID(),
        tenantId: session.tenantId,
        sessionId: session.id,
        agentId: session.agentId,
        clientMessageId: dto.clientMessageId,
        actIteration: session.iteration,
      },
      now,
    );
    try {
      await this.dataSource.transaction(async (m) => {
        await admit?.(m);
        const active = await this.runs.findActive(session.id, m);
        if (active) throw runInProgress(session.id, active);
        if (!(await this.sessionRepo.moveStatus(session.id, 'ACTIVE', 'RUNNING', m)))
          throw await this.notActive(session.id);
        // Each run may take the agent's maxIterations rounds, whatever earlier runs of the session used.
        await this.sessionRepo.setIterationBudget(session.id, session.iteration + agent.maxIterations, m);
        await this.runs.insert(m, run);
        await this.messages.append(m, { tenantId: run.tenantId, sessionId: run.sessionId, runId: run.id }, [
          { role: 'user', content: dto.content },
        ]);
        await this.events.append(
          {
            tenantId: run.tenantId,
            sessionId: run.sessionId,
            type: 'message',
            data: messageEventData(run.id, 'user', dto.content),
          },
          m,
        );
        await alongside?.(m, run);
      });
    } catch (err) {
      // A concurrent request with the same clientMessageId won: answer with its run.
      const same = await this.runs.findByMessage(session.id, dto.clientMessageId);
      if (same && (isUniqueViolation(err) || err instanceof DomainError)) return same;
      throw err;
    }
    this.notifier.queued();
    return run;
  }

  private async notActive(sessionId: string): Promise<DomainError> {
    return notActiveError(await this.sessions.load({ tenantId: null }, sessionId));
  }

  /**
   * The run once it stopped, or as it is after `maxMs` or once `signal` aborts (a waiting client that went away: its
   * request read the run every RUN_POLL_INTERVAL_MS for up to 5 minutes, for nobody).
   */
  async waitForStop(run: AgentRunEntity, maxMs = MAX_WAIT_MS, signal?: AbortSignal): Promise<AgentRunEntity> {
    const deadline = Date.now() + maxMs;
    let current = run;
    while (!STOPPED_RUN_STATUSES.includes(current.status) && Date.now() < deadline && !signal?.aborted) {
      await this.notifier.nextStop(
        run.id,
        Math.min(this.config.agentLoop.pollIntervalMs, deadline - Date.now()),
        signal,
      );
      if (signal?.aborted) break;
      current = (await this.runs.find(run.id)) ?? current;
    }
    return current;
  }
}

function runInProgress(sessionId: string, active: AgentRunEntity): DomainError {
  return new DomainError(
    AgentRunsErrorCode.RUN_IN_PROGRESS,
    `Session ${sessionId} already has run ${active.id} (${active.status}); wait for it to finish${
      active.status === 'INTERRUPTED' || active.status === 'PAUSED'
        ? `, or decide its request with POST /api/v1/sessions/${sessionId}/resume`
        : ''
    }, then send the message again.`,
    { runId: active.id, status: active.status },
  );
}

/**
 * The run as its endpoints answer it. While it waits for a human, the request shown is the session's current one: a
 * resume that approved one call may have stopped at the next call's request, with the run still waiting; and its
 * status is that request's (PAUSED for a CHECKPOINT_PAUSE, INTERRUPTED for any other), as when the run stopped: the
 * resume of a pause that stopped at a call needing approval left the run PAUSED beside a TOOL_APPROVAL request. Once
 * the session was decided (no longer INTERRUPTED), the run waits for nobody: it is RUNNING (queued again within
 * RUN_POLL_INTERVAL_MS), without the request just decided, which a client read right after its resume asked again.
 */
export function toRunView(run: AgentRunEntity, session: Pick<AgentSessionEntity, 'status' | 'hitlRequest'>): RunView {
  const waiting = run.status === 'INTERRUPTED' || run.status === 'PAUSED';
  const decided = waiting && session.status !== 'INTERRUPTED';
  const current = waiting && !decided ? session.hitlRequest : null;
  const hitlRequest = decided ? null : (current ?? run.hitlRequest);
  let status = decided ? 'RUNNING' : run.status;
  if (current) status = current.requestType === 'CHECKPOINT_PAUSE' ? 'PAUSED' : 'INTERRUPTED';
  return {
    runId: run.id,
    status: status === 'QUEUED' ? 'RUNNING' : status,
    ...(run.answer !== null && { answer: run.answer }),
    ...(run.error !== null && { error: run.error }),
    ...(run.finishReason !== null && { finishReason: run.finishReason }),
    ...(hitlRequest && { hitlRequest }),
    iterations: run.iterations,
  };
}

/** Why a session that is not ACTIVE takes no message, and what to do instead. */
function notActiveError(session: Pick<AgentSessionEntity, 'id' | 'status' | 'hitlRequest'>): DomainError {
  if (session.status === 'CLOSED')
    return new DomainError(
      LoopActingErrorCode.SESSION_CLOSED,
      `Session ${session.id} is closed; start a new session with POST /api/v1/sessions and send the message there.`,
    );
  if (session.status === 'INTERRUPTED')
    return new DomainError(
      LoopActingErrorCode.SESSION_INTERRUPTED,
      `Session ${session.id} waits for a human decision; POST /api/v1/sessions/${session.id}/resume first.`,
      { hitlRequest: session.hitlRequest },
    );
  return new DomainError(
    AgentRunsErrorCode.RUN_IN_PROGRESS,
    `Session ${session.id} is ${session.status}; send the message when its run has finished.`,
  );
}
