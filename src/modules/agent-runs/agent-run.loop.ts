import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ActService } from '@app/modules/loop-acting/acting/act.service';
import type { ActResponse } from '@app/modules/loop-acting/acting/act.types';
import { SessionsService } from '@app/modules/loop-acting/sessions/sessions.service';
import { AgentSessionRepository } from '@app/modules/loop-acting/sessions/agent-session.repository';
import type { AgentSessionEntity } from '@app/modules/loop-acting/sessions/agent-session.entity';
import type { HitlRequestView } from '@app/modules/loop-acting/sessions/session.types';
import { LoopActingErrorCode } from '@app/modules/loop-acting/loop-acting.errors';
import { AgentConfigService } from '@app/modules/agent-config/agent-config.service';
import { ToolVisibilityService } from '@app/modules/agent-config/visibility/tool-visibility.service';
import { ModelProvidersService } from '@app/modules/model-providers/model-providers.service';
import { ModelCallError, ModelChatClient, type ModelAnswer } from '@app/modules/model-providers/model-chat.client';
import type { ModelProviderEntity } from '@app/modules/model-providers/model-provider.entity';
import type { AgentEntity } from '@app/modules/agent-config/agent.entity';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import type { NewSessionEvent } from '@app/modules/session-events/session-event.types';
import { AgentRunEntity } from './agent-run.entity';
import { AgentRunsRepository, RunLeaseLostError } from './agent-runs.repository';
import { AgentMessagesRepository, type NewMessage } from './agent-messages.repository';
import { AgentRunNotifier } from './agent-run.notifier';
import { assignJournalKeys, toChatMessages, usedJournalKeys } from './agent-run.conversation';
import { messageEventData } from './agent-run.message-event';
import { TOOL_NAME_PATTERN } from '@app/modules/tool-registry/tool-registry.types';
import { type ContextWindow, withinContextWindow } from './agent-run.context-window';
import type { ConversationMessage, PendingToolCall, RunStatus } from './agent-runs.types';
import { SessionRemindersRegistry } from '@app/modules/agent-config/reminders/session-reminders.registry';
import { TaskReminders } from './subagents/task-reminders';
import { AgentTasksRepository } from './subagents/agent-tasks.repository';
import { closedParentAuth } from './subagents/subagent-tasks.close-hook';
import { GatewayMetrics } from '@app/modules/metrics/gateway-metrics.service';
import { MAX_TOOL_CALLS_PER_ACT } from '@app/modules/loop-acting/sessions/act-body.schema';
import { ToolCallJournalRepository } from '@app/modules/loop-acting/journal/tool-call-journal.repository';
import { ToolResultStore } from '@app/modules/loop-acting/results/tool-result.store';
import { inlineResult } from '@app/modules/loop-acting/results/tool-result.view';
import { FAILURE_PREFIX } from '@app/modules/executors/call-path/tool-call.types';
import { isTransientDatabaseError } from '@app/database/transient-database-error';
import { databaseErrorCode } from '@app/database/database-error-code';
import { nullIfNotFound } from '@app/common/errors/not-found';
import { AgentRunDatabaseBackoff } from './agent-run.database-backoff';

/** The format of the tool specs a run's model is given (every provider speaks OpenAI's chat completions). */
const RUN_SPEC_FORMAT = 'openai';
/**
 * Tool calls of one model answer that are kept (stored in the conversation and answered), at most: those past it are
 * dropped as if the model had not made them. An answer of MODEL_MAX_ANSWER_BYTES holds 100,000 tiny calls, and
 * storing an answer for each (one message row apiece) held the event loop for 6 s on SQLite, every tenant's requests
 * with it; one act runs only MAX_TOOL_CALLS_PER_ACT of them anyway.
 */
export const MAX_TOOL_CALLS_PER_ANSWER = 1_000;
/** What `work` answers when it stopped between two steps because its run was to be handed back. */
const HANDED_BACK = 'handed back';

/** Why a run stops, and what is written with it. */
interface Stop {
  status: Extract<RunStatus, 'COMPLETED' | 'INTERRUPTED' | 'PAUSED' | 'FAILED'>;
  answer?: string;
  error?: string;
  /** Why the final answer ended, when not as the model meant it. */
  finishReason?: string;
  hitlRequest?: HitlRequestView | null;
  messages?: NewMessage[];
}

/** The run's context, loaded when a worker takes it (the provider again before each model request). */
interface RunContext {
  session: AgentSessionEntity;
  agent: AgentEntity;
  provider: ModelProviderEntity;
}

/**
 * Works one claimed run from its checkpoint until it stops: ask the model with the session's visible tools (as
 * tool-specs emits them), checkpoint the answer, `act` on its tool calls through the ActService (the same
 * journal, HITL and visibility re-check as any runtime), checkpoint the results as `role: tool` messages, and
 * again, until a final answer (COMPLETED), a HITL request (INTERRUPTED), the agent's iteration budget (PAUSED, a
 * CHECKPOINT_PAUSE) or a model failure (FAILED). Every checkpoint is one transaction guarded by the lease.
 */
@Injectable()
export class AgentRunLoop {
  private readonly logger = new Logger(AgentRunLoop.name);
  private readonly databaseBackoff: AgentRunDatabaseBackoff;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly runs: AgentRunsRepository,
    private readonly messages: AgentMessagesRepository,
    private readonly sessions: SessionsService,
    private readonly sessionRepo: AgentSessionRepository,
    private readonly agents: AgentConfigService,
    private readonly providers: ModelProvidersService,
    private readonly model: ModelChatClient,
    private readonly visibility: ToolVisibilityService,
    private readonly acting: ActService,
    private readonly events: SessionEventsStore,
    private readonly notifier: AgentRunNotifier,
    private readonly tasks: AgentTasksRepository,
    private readonly reminderRegistry: SessionRemindersRegistry,
    private readonly taskReminders: TaskReminders,
    private readonly metrics: GatewayMetrics,
    private readonly journal: ToolCallJournalRepository,
    private readonly results: ToolResultStore,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {
    this.databaseBackoff = new AgentRunDatabaseBackoff(config.agentLoop.pollIntervalMs, config.agentLoop.runLeaseMs);
  }

  /**
   * `handBack`: once aborted, the run goes back to the queue (a loop lent to a waiting call whose wait ended): a
   * model request under way is cut (the round is asked again from the checkpoint), an act under way is finished and
   * checkpointed first.
   * @returns `retryAfterMs` when the run must go back to the queue (a tool call of it is still running elsewhere, the
   * database was busy or unreachable, or it was handed back); otherwise the run stopped or its lease was lost.
   */
  async drive(
    run: AgentRunEntity,
    owner: string,
    signal: AbortSignal,
    handBack?: AbortSignal,
  ): Promise<{ retryAfterMs?: number }> {
    try {
      const worked = await this.work(run, owner, signal, handBack);
      this.databaseBackoff.reset(run.id);
      return worked === HANDED_BACK ? { retryAfterMs: 0 } : {};
    } catch (err) {
      if (err instanceof RunLeaseLostError || signal.aborted) return {};
      if (err instanceof DomainError && err.code === LoopActingErrorCode.TOOL_CALL_IN_PROGRESS)
        return { retryAfterMs: Math.ceil(this.config.journalLeaseMs / 2) };
      // A deadlock victim, a lock wait timeout, a lost connection, SQLite BUSY: nothing wrong with the run (what its
      // step committed is a checkpoint, the rest was rolled back). It FAILED ("the gateway failed to continue the
      // run"); it goes back to the queue instead and continues from its last checkpoint, as after a crash (its tool
      // calls that ran are reused by toolCallId).
      if (isTransientDatabaseError(err)) return { retryAfterMs: this.handBackAfterDatabaseFailure(run, err) };
      this.databaseBackoff.reset(run.id);
      // The client reads an incident id, not the error: its text may name tables, SQL or host paths.
      const incidentId = randomUUID();
      this.logger.error(`run ${run.id} failed (incident ${incidentId}): ${(err as Error).stack ?? String(err)}`);
      await this.stop(run, owner, {
        status: 'FAILED',
        error: `the gateway failed to continue the run after an unexpected error (incident ${incidentId}; the gateway's log has the details); send the message again to start a new run, and report the incident if it recurs`,
      }).catch(() => undefined);
      return {};
    }
  }

  /** Logs why the run goes back to the queue, and how long it waits there (see AgentRunDatabaseBackoff). */
  private handBackAfterDatabaseFailure(run: AgentRunEntity, err: unknown): number {
    const waitMs = this.databaseBackoff.next(run.id);
    // The code only: a driver's message may quote what a statement wrote (a tool's result, the user's message).
    this.logger.warn(
      `run ${run.id} goes back to the queue for ${waitMs} ms: the database was busy or unreachable (${databaseErrorCode(err)}); it continues from its last checkpoint`,
    );
    return waitMs;
  }

  private async work(
    run: AgentRunEntity,
    owner: string,
    signal: AbortSignal,
    handBack: AbortSignal | undefined,
  ): Promise<typeof HANDED_BACK | void> {
    const ctx = await this.prepare(run, owner);
    if (!ctx) return;
    for (;;) {
      if (signal.aborted) throw new RunLeaseLostError('the worker is stopping');
      if (handBack?.aborted) return HANDED_BACK;
      if (run.pendingCalls) {
        if (await this.actOnPending(run, owner, ctx)) return;
        continue;
      }
      const conversation = await this.messages.latest(run.sessionId);
      const specs = await this.visibility.toolSpecs(
        {
          tenantId: run.tenantId,
          agentId: run.agentId,
          permissions: ctx.session.permissions,
          capabilities: ctx.session.capabilities,
        },
        RUN_SPEC_FORMAT,
      );
      // Every feature's reminders (the active skill, finished sub-agent tasks), as tool-specs answers them.
      const session = (await this.sessionRepo.find(run.sessionId)) ?? ctx.session;
      // Closed meanwhile (a tool call of the last round was in flight): the model is asked nothing more.
      if (session.status === 'CLOSED')
        return this.stop(run, owner, { status: 'FAILED', error: `session ${session.id} was closed` });
      // A sub-agent task's parent closed by a process that died before its close hooks closed this child session.
      const closedParent = await this.tasks.closedParentOf(session.id);
      if (closedParent) return this.stopForClosedParent(run, owner, closedParent);
      // The agent and its provider as they are now, as a run taken over after a crash reads them: a provider deleted
      // meanwhile is not asked again, one changed (key, URL, model) or put in its place on the agent is asked as it is
      // now, with the agent's system prompt as it is now (the run failed when the agent's old provider was deleted).
      const current = await this.agentAndProvider(run);
      if ('failed' in current) return this.stop(run, owner, { status: 'FAILED', error: current.failed });
      Object.assign(ctx, current);
      // The tasks to mark told are read before the reminders: one that finishes between the two reads is then told
      // again next round, never marked told without having been in this round's reminders.
      const toldTasks = await this.taskReminders.pending(run.sessionId);
      const reminders = await this.reminderRegistry.remindersFor(session);
      let answer: ModelAnswer;
      // A lent loop's wait ended: its model request is cut and the round asked again from the checkpoint (as after a
      // crash) by a worker of the queue, so the caller's place is given back now rather than a model answer later.
      const closing = this.watchClose(session.id, handBack ? AbortSignal.any([signal, handBack]) : signal);
      try {
        // A forced choice (web_search under ALWAYS) is for the round that answers the user's message: on every round
        // the model could only search again, never answer.
        const toolChoice = conversation.at(-1)?.role === 'user' ? specs.toolChoice : undefined;
        answer = await this.ask(
          ctx,
          withReminders(ctx.agent.systemPrompt, reminders),
          { tools: specs.tools, toolChoice },
          conversation,
          closing.signal,
        );
      } catch (err) {
        if (closing.closed())
          return this.stop(run, owner, { status: 'FAILED', error: `session ${session.id} was closed` });
        if (handBack?.aborted && !signal.aborted) return HANDED_BACK;
        if (!(err instanceof ModelCallError)) throw err;
        return this.stop(run, owner, { status: 'FAILED', error: err.message });
      } finally {
        closing.dispose();
      }
      const stopped = await this.recordAnswer(run, owner, answer, usedJournalKeys(conversation));
      await this.taskReminders.markTold(toldTasks.taskIds);
      if (stopped) return;
    }
  }

  /**
   * One model request with the conversation fitted to the provider's context window. A provider that refuses the
   * conversation as longer than its window, naming the window, is asked once more within that window.
   */
  private async ask(
    ctx: RunContext,
    systemPrompt: string | null,
    specs: { tools: object[]; toolChoice?: unknown },
    conversation: readonly ConversationMessage[],
    signal: AbortSignal,
  ): Promise<ModelAnswer> {
    const options = ctx.provider.options ?? {};
    const request = (window: ContextWindow) => {
      const sent = withinContextWindow(window, systemPrompt, specs.tools, conversation);
      const messages = toChatMessages(sent.systemPrompt, sent.messages);
      return this.model.complete(ctx.provider, { messages, tools: specs.tools, toolChoice: specs.toolChoice }, signal);
    };
    try {
      return await request(options);
    } catch (err) {
      const named = err instanceof ModelCallError ? err.contextWindowTokens : undefined;
      if (!named || named >= (options.contextWindowTokens ?? Infinity)) throw err;
      return request({ ...options, contextWindowTokens: named });
    }
  }

  /**
   * `signal`, also aborted when the session is closed (on any instance) while the model is asked: a closed session's
   * run waited for the answer, up to MODEL_CALL_TIMEOUT_MS for each attempt, holding its worker. Looked at every
   * RUN_POLL_INTERVAL_MS.
   */
  private watchClose(
    sessionId: string,
    signal: AbortSignal,
  ): { signal: AbortSignal; closed: () => boolean; dispose: () => void } {
    const closed = new AbortController();
    const timer = setInterval(() => {
      this.sessionRepo.find(sessionId).then(
        (s) => s?.status === 'CLOSED' && closed.abort(),
        () => undefined,
      );
    }, this.config.agentLoop.pollIntervalMs);
    return {
      signal: AbortSignal.any([signal, closed.signal]),
      closed: () => closed.signal.aborted,
      dispose: () => clearInterval(timer),
    };
  }

  /**
   * Stops the run of a sub-agent task whose parent session is closed and closes its session, as the parent's close
   * hooks would have (its own children's too): nobody can hear of its answer any more.
   */
  /**
   * Closes the run's session first, then stops the run: a close the database refuses (busy) throws while the run still
   * holds its place, so it is handed back and made again. Stopped first, the run was done with and its session stayed
   * open for good (only the parent's close hooks close a child session). The stop's move to ACTIVE leaves a CLOSED
   * session as it is.
   */
  private async stopForClosedParent(run: AgentRunEntity, owner: string, parentSessionId: string): Promise<void> {
    await this.sessions.close(closedParentAuth(run.tenantId, parentSessionId), run.sessionId);
    await this.stop(run, owner, { status: 'FAILED', error: `its parent session ${parentSessionId} was closed` });
  }

  /** The session, agent and provider; null when the run stopped here (closed session, no model...). */
  private async prepare(run: AgentRunEntity, owner: string): Promise<RunContext | null> {
    const session = await this.sessions.load({ tenantId: run.tenantId }, run.sessionId);
    if (session.status === 'CLOSED') {
      await this.stop(run, owner, { status: 'FAILED', error: `session ${session.id} was closed` });
      return null;
    }
    if (session.status === 'INTERRUPTED') {
      await this.stop(run, owner, interruptedBy(session.hitlRequest));
      return null;
    }
    // Only while this worker still holds the run: one that stalled past its lease, the run taken over (and maybe
    // finished, the session moved back to ACTIVE) meanwhile, would leave the session RUNNING with no run for good.
    if (session.status === 'ACTIVE')
      await this.dataSource.transaction(async (m) => {
        await this.runs.checkpoint(m, run, owner, {});
        await this.sessionRepo.moveStatus(session.id, 'ACTIVE', 'RUNNING', m);
      });
    const current = await this.agentAndProvider(run);
    if ('failed' in current) {
      await this.stop(run, owner, { status: 'FAILED', error: current.failed });
      return null;
    }
    return { session, ...current };
  }

  /** The run's agent and its model provider as they are now, or why the run cannot go on. */
  private async agentAndProvider(
    run: AgentRunEntity,
  ): Promise<Pick<RunContext, 'agent' | 'provider'> | { failed: string }> {
    // Only a row that is gone is "no longer exists": a database busy or unreachable is thrown (the run is handed back).
    const agent = await this.agents.loadAgent({ tenantId: run.tenantId }, run.agentId).catch(nullIfNotFound);
    if (!agent) return { failed: `agent ${run.agentId} no longer exists` };
    if (!agent.modelProviderId)
      return {
        failed: `agent ${agent.name} has no modelProviderId; set one with PATCH /api/v1/admin/agents/${agent.id}`,
      };
    const provider = await this.providers.loadVisible(run.tenantId, agent.modelProviderId).catch(nullIfNotFound);
    if (!provider)
      return {
        failed: `model provider ${agent.modelProviderId} of agent ${agent.name} no longer exists; set another modelProviderId with PATCH /api/v1/admin/agents/${agent.id} (GET /api/v1/admin/model-providers lists them), then send the message again`,
      };
    return { agent, provider };
  }

  /** Checkpoints a model answer; true when it was the final one (the run stopped COMPLETED). */
  private async recordAnswer(
    run: AgentRunEntity,
    owner: string,
    answer: ModelAnswer,
    usedKeys: ReadonlySet<string>,
  ): Promise<boolean> {
    const iterations = run.iterations + 1;
    const ref = { tenantId: run.tenantId, sessionId: run.sessionId, runId: run.id };
    if (answer.toolCalls.length === 0) {
      await this.stop(
        run,
        owner,
        {
          status: 'COMPLETED',
          answer: answer.content ?? '',
          finishReason: answer.finishReason,
          messages: [{ role: 'assistant', content: answer.content ?? '' }],
        },
        iterations,
      );
      return true;
    }
    const session = await this.sessions.load({ tenantId: run.tenantId }, run.sessionId);
    const made = answer.toolCalls.slice(0, MAX_TOOL_CALLS_PER_ANSWER);
    // Only the answer's very last call can have been cut by the token limit, and it is kept only if nothing was dropped.
    const cutShort = answer.finishReason === 'length' && made.length === answer.toolCalls.length;
    let calls = assignJournalKeys(made, usedKeys, run.id, iterations, cutShort);
    // The session's runtime may have used an id through act: the model's call is another call, so it is qualified too.
    const journaled = await this.journal.existingIds(
      run.tenantId,
      run.sessionId,
      calls.map((c) => c.key),
    );
    if (journaled.size > 0)
      calls = assignJournalKeys(made, new Set([...usedKeys, ...journaled]), run.id, iterations, cutShort);
    await this.dataSource.transaction(async (m) => {
      await this.runs.checkpoint(m, run, owner, {
        iterations,
        pendingCalls: calls,
        actIteration: Math.max(session.iteration + 1, run.actIteration + 1),
      });
      await this.messages.append(m, ref, [
        { role: 'assistant', content: answer.content, toolCalls: calls, reasoning: answer.reasoning ?? null },
      ]);
      await this.events.append(
        this.event(run, 'message', messageEventData(run.id, 'assistant', answer.content, calls)),
        m,
      );
    });
    return false;
  }

  /** Acts on the checkpointed tool calls; true when the run stopped (a HITL request, a pause, a failure). */
  private async actOnPending(run: AgentRunEntity, owner: string, ctx: RunContext): Promise<boolean> {
    const calls = run.pendingCalls!;
    // As many as one act takes (a REST act with more is refused); the rest get a result saying so, unrun.
    const named = calls.filter((c) => !c.truncated && TOOL_NAME_PATTERN.test(c.name));
    const submitted = named.slice(0, MAX_TOOL_CALLS_PER_ACT);
    const unrun = new Set(named.slice(MAX_TOOL_CALLS_PER_ACT));
    let response: ActResponse;
    // Even with no call left to submit (every name invalid) the round goes through act: it counts the iteration and
    // pauses the run at the agent's budget, so a model that only makes up tool names cannot loop without end.
    const auth: AuthContext = { keyId: `run:${run.id}`, role: 'runtime', tenantId: run.tenantId };
    try {
      response = await this.acting.act(
        auth,
        run.sessionId,
        {
          iteration: run.actIteration,
          toolCalls: submitted.map((c) => ({ id: c.key, name: c.name, arguments: c.arguments })),
          format: RUN_SPEC_FORMAT,
        },
        { runId: run.id },
      );
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      if (err.code === LoopActingErrorCode.SESSION_INTERRUPTED) {
        const session = await this.sessions.load({ tenantId: run.tenantId }, run.sessionId);
        await this.stop(run, owner, interruptedBy(session.hitlRequest));
        return true;
      }
      if (err.code === LoopActingErrorCode.TOOL_CALL_IN_PROGRESS) throw err;
      // Another request moved the session while this act ran (the runtime's own act or the dead-owner sweep raised a
      // request first): the round is acted on again, its calls that ran reused, and it finds the session as it is now
      // (INTERRUPTED: the run waits for that decision). It FAILED the run, as if the gateway had broken.
      if (err.code === CommonErrorCode.CONCURRENT_MODIFICATION) return false;
      if (err.code === LoopActingErrorCode.STALE_ITERATION) {
        // The session's runtime acted at a later iteration since this round was checkpointed (or while the run
        // waited for a human): the round goes on at the session's iteration. Its calls keep their journal keys, so a
        // call a resume already ran is reused, never run again.
        const actIteration = Number(err.details.sessionIteration);
        await this.runs.checkpoint(this.dataSource.manager, run, owner, { actIteration });
        return false;
      }
      await this.stop(run, owner, { status: 'FAILED', error: err.message });
      return true;
    }
    if (response.status === 'INTERRUPTED') {
      await this.stop(run, owner, interruptedBy(response.hitlRequest ?? null));
      return true;
    }
    const byKey = new Map(response.results.map((r) => [r.toolCallId, r.content]));
    const toolMessages: NewMessage[] = calls.map((c) => ({
      role: 'tool',
      toolCallId: c.id,
      content: byKey.get(c.key) ?? unsubmittedAnswer(c, unrun.has(c)),
    }));
    await this.dataSource.transaction(async (m) => {
      await this.runs.checkpoint(m, run, owner, { pendingCalls: null });
      await this.messages.append(m, { tenantId: run.tenantId, sessionId: run.sessionId, runId: run.id }, toolMessages);
    });
    ctx.session.iteration = run.actIteration;
    return false;
  }

  /** Writes the stop in one transaction: the run, its last messages, the session's status and `run.finished`. */
  private async stop(run: AgentRunEntity, owner: string, stop: Stop, iterations = run.iterations): Promise<void> {
    const now = Date.now();
    if (stop.status === 'FAILED')
      stop = {
        ...stop,
        messages: [...(await this.answersOfPending(run, stop.error ?? 'failed')), ...(stop.messages ?? [])],
      };
    await this.dataSource.transaction(async (m) => {
      await this.runs.checkpoint(m, run, owner, {
        status: stop.status,
        iterations,
        owner: null,
        answer: stop.answer ?? null,
        error: stop.error ?? null,
        finishReason: stop.finishReason ?? null,
        hitlRequest: stop.hitlRequest ?? null,
        finishedAt: now,
      });
      if (stop.messages) {
        await this.messages.append(
          m,
          { tenantId: run.tenantId, sessionId: run.sessionId, runId: run.id },
          stop.messages,
        );
        // Tool answers are no `message` event, as when a round's results are checkpointed.
        for (const msg of stop.messages.filter((x) => x.role !== 'tool'))
          await this.events.append(this.event(run, 'message', messageEventData(run.id, msg.role, msg.content)), m);
      }
      if (stop.status === 'COMPLETED' || stop.status === 'FAILED')
        await this.sessionRepo.moveStatus(run.sessionId, 'RUNNING', 'ACTIVE', m);
      const finished = {
        runId: run.id,
        status: stop.status,
        ...(stop.finishReason && { finishReason: stop.finishReason }),
      };
      await this.events.append(this.event(run, 'run.finished', finished), m);
      const task =
        stop.status === 'COMPLETED' || stop.status === 'FAILED'
          ? await this.tasks.findByChildSession(run.sessionId, m)
          : null;
      // Only the task's own run finishes it: a later message to the child session starts another run of that session.
      if (task?.childRunId === run.id)
        await this.events.append(
          {
            tenantId: task.tenantId,
            sessionId: task.parentSessionId,
            type: 'task.finished',
            data: { taskId: task.id, status: stop.status, agent: task.agentName, childSessionId: run.sessionId },
          },
          m,
        );
    });
    this.metrics.recordRunStopped(stop.status);
    this.notifier.stopped(run.id);
  }

  /**
   * A tool answer for each call a failing run leaves pending: the stored result of a call that ran (a resume may have
   * run it), otherwise why there is none. A model refuses a conversation whose tool calls go unanswered, so without
   * them every later run of the session would fail too.
   */
  private async answersOfPending(run: AgentRunEntity, reason: string): Promise<NewMessage[]> {
    // As committed: a checkpoint that failed inside its (rolled back) transaction has already cleared them in `run`.
    const calls = (await this.runs.find(run.id))?.pendingCalls ?? [];
    if (calls.length === 0) return [];
    // Only the calls act was given can have an entry (at most MAX_TOOL_CALLS_PER_ACT).
    const journaled = await this.journal.existingIds(
      run.tenantId,
      run.sessionId,
      calls.map((c) => c.key),
    );
    const entries = await this.journal.findMany(run.tenantId, run.sessionId, [...journaled]);
    const answers: NewMessage[] = [];
    for (const c of calls) {
      const entry = entries.get(c.key);
      const content = !entry
        ? `${FAILURE_PREFIX}not run: the run stopped before this call (${reason}).`
        : entry.state === 'STARTED'
          ? `${FAILURE_PREFIX}the run stopped while this call ran (${reason}); whether it took effect is unknown: check before making it again.`
          : inlineResult(await this.results.contentOf(entry), entry.inlineLimit, c.key).content;
      answers.push({ role: 'tool', toolCallId: c.id, content });
    }
    return answers;
  }

  private event(run: AgentRunEntity, type: NewSessionEvent['type'], data: Record<string, unknown>): NewSessionEvent {
    return { tenantId: run.tenantId, sessionId: run.sessionId, type, data: { runId: run.id, ...data } };
  }
}

/** The system prompt with the reminders of this round after it (a second system message is not portable). */
function withReminders(systemPrompt: string | null, reminders: readonly string[]): string | null {
  if (reminders.length === 0) return systemPrompt;
  const block = `Reminders:\n${reminders.map((r) => `- ${r}`).join('\n')}`;
  return systemPrompt ? `${systemPrompt}\n\n${block}` : block;
}

/** The tool answer of a call the round did not give act: cut by the token limit, over the limit of one act, or no tool name. */
function unsubmittedAnswer(call: PendingToolCall, overLimit: boolean): string {
  if (call.truncated)
    return `${FAILURE_PREFIX}not run: your answer was cut at your token limit (finish_reason "length") before the arguments of this call were complete; make it again with shorter arguments, or split the work into smaller calls.`;
  if (overLimit)
    return `${FAILURE_PREFIX}not run: one answer may make at most ${MAX_TOOL_CALLS_PER_ACT} tool calls; make this one again in your next answer if it is still needed.`;
  return `${FAILURE_PREFIX}"${call.name}" is not a tool name; call one of the tools you were given, by its exact name.`;
}

/** A session waiting for a human: PAUSED at the iteration budget, INTERRUPTED for anything else. */
function interruptedBy(hitlRequest: HitlRequestView | null): Stop {
  return {
    status: hitlRequest?.requestType === 'CHECKPOINT_PAUSE' ? 'PAUSED' : 'INTERRUPTED',
    hitlRequest,
  };
}
