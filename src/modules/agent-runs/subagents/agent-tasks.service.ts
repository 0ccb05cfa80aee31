import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { SESSION_TASK_MAX_CHARS } from '@app/modules/loop-acting/sessions/sessions.dto';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { isUniqueViolation } from '@app/database/unique-violation';
import { nullIfNotFound } from '@app/common/errors/not-found';
import { toIso } from '@app/database/epoch-ms.transformer';
import { SessionsService } from '@app/modules/loop-acting/sessions/sessions.service';
import { AgentSessionRepository } from '@app/modules/loop-acting/sessions/agent-session.repository';
import type { AgentSessionEntity } from '@app/modules/loop-acting/sessions/agent-session.entity';
import { AgentConfigService } from '@app/modules/agent-config/agent-config.service';
import type { AgentEntity } from '@app/modules/agent-config/agent.entity';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import type { NewSessionEvent } from '@app/modules/session-events/session-event.types';
import { AgentRunsService } from '../agent-runs.service';
import { AgentRunsRepository } from '../agent-runs.repository';
import type { AgentRunEntity } from '../agent-run.entity';
import { AgentTasksRepository } from './agent-tasks.repository';
import type { AgentTaskEntity } from './agent-task.entity';
import type { TaskStatus, TaskView } from './agent-tasks.types';

/** Who delegates: the parent session's call. */
export interface DelegatingCall {
  tenantId: string;
  sessionId: string;
  agentId: string;
  toolCallId: string;
}

/** A delegation the rules refuse (not a sub-agent, too deep, a cycle): the model reads `message`. */
export class DelegationRefused extends Error {
  override name = 'DelegationRefused';
}

/**
 * Sub-agent tasks: a child session of the named agent with a run of the agent loop, started once per parent
 * tool call (the journal key), queued on the shared run queue like any run. Only the parent agent's
 * `subAgentIds` may be named, the depth from the root session is bounded and an agent already in the chain of
 * parents is refused (no cycles).
 */
@Injectable()
export class AgentTasksService {
  constructor(
    private readonly tasks: AgentTasksRepository,
    private readonly runs: AgentRunsRepository,
    private readonly agentRuns: AgentRunsService,
    private readonly sessions: SessionsService,
    private readonly sessionRepo: AgentSessionRepository,
    private readonly agents: AgentConfigService,
    private readonly events: SessionEventsStore,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /**
   * `reserve`: called with the child's run id in the transaction that queues it, before the commit (a call that lends
   * its worker's place to that run: the instance's other workers leave it to the lent loop).
   */
  async submit(
    call: DelegatingCall,
    agentName: string,
    task: string,
    reserve?: (childRunId: string) => void,
  ): Promise<AgentTaskEntity> {
    const existing = await this.tasks.findByParentCall(call.sessionId, call.toolCallId);
    if (existing) return existing;
    const parentAgent = await this.agents.loadAgent({ tenantId: call.tenantId }, call.agentId);
    const target = await this.subAgentNamed(parentAgent, agentName);
    const { chain, rootSessionId } = await this.chainOf(call.sessionId, parentAgent);
    const depth = chain.length;
    if (chain.some((a) => a.id === target.id)) {
      throw new DelegationRefused(
        `delegating to ${target.name} would make a cycle (${[...chain]
          .reverse()
          .map((a) => a.name)
          .join(' → ')} → ${target.name}); do this step yourself.`,
      );
    }
    if (depth > this.config.agentLoop.subagentMaxDepth) {
      throw new DelegationRefused(
        `delegating to ${target.name} would be ${depth} hops from the root session; SUBAGENT_MAX_DEPTH allows ${this.config.agentLoop.subagentMaxDepth}. Do the work yourself or answer with what you have.`,
      );
    }
    // Refused early (no child session made), then again under the root's lock where the task's row is written.
    this.assertRoomForTask(await this.tasks.openCountInTree(rootSessionId), rootSessionId, call.sessionId);
    const childSession = await this.childSessionOf(call, target, task);
    const clientMessageId = `task:${call.toolCallId}`;
    const taskId = randomUUID();
    const createdAt = Date.now();
    const rowOf = (childRunId: string): AgentTaskEntity => ({
      id: taskId,
      tenantId: call.tenantId,
      parentSessionId: call.sessionId,
      parentToolCallId: call.toolCallId,
      parentAgentId: parentAgent.id,
      agentId: target.id,
      agentName: target.name,
      childSessionId: childSession.id,
      childRunId,
      depth,
      createdAt,
      remindedAt: null,
    });
    // The child's run, the task's row and its event in one transaction: a child is never worked without the row
    // that makes it the parent's (its depth and cycle checks, the parent's close and task.finished all read it).
    const run =
      (await this.runs.findByMessage(childSession.id, clientMessageId)) ??
      (await this.agentRuns
        .startRun(
          childSession,
          clientMessageId,
          task,
          async (m, started) => {
            reserve?.(started.id);
            await this.tasks.insert(rowOf(started.id), m);
            await this.events.append(submittedEvent(rowOf(started.id)), m);
          },
          async (m) => {
            // The root first, the parent second (see lockSession): the tree's submissions count one at a time.
            const rootStatus = await this.tasks.lockSession(rootSessionId, m);
            const parentStatus =
              rootSessionId === call.sessionId ? rootStatus : await this.tasks.lockSession(call.sessionId, m);
            assertParentOpen(call.sessionId, parentStatus);
            this.assertRoomForTask(await this.tasks.openCountInTree(rootSessionId, m), rootSessionId, call.sessionId);
          },
        )
        .catch(async (err: unknown) => {
          // Refused under the lock (a concurrent submission or close won): the child made for it has no run and
          // never will; closed, it is not left ACTIVE for good.
          if (err instanceof DelegationRefused)
            await this.sessions
              .close({ keyId: `task:${call.toolCallId}`, role: 'runtime', tenantId: call.tenantId }, childSession.id)
              .catch(() => undefined);
          throw err;
        }));
    const named = await this.tasks.findByParentCall(call.sessionId, call.toolCallId);
    if (named) return named;
    // A run without its row (written apart by an earlier version, cut short between the two): the row now.
    const row = rowOf(run.id);
    try {
      await this.tasks.insert(row);
    } catch (err) {
      const winner = isUniqueViolation(err) ? await this.tasks.findByParentCall(call.sessionId, call.toolCallId) : null;
      if (winner) return winner;
      throw err;
    }
    await this.events.append(submittedEvent(row));
    return row;
  }

  /** SUBAGENT_MAX_OPEN_TASKS bounds a root session's whole delegation tree: its tasks, theirs, and so on down. */
  private assertRoomForTask(open: number, rootSessionId: string, sessionId: string): void {
    const max = this.config.agentLoop.subagentMaxOpenTasks;
    if (open >= max) {
      const whose =
        rootSessionId === sessionId
          ? "this session's delegation tree (its tasks, theirs and so on)"
          : `the delegation tree of root session ${rootSessionId} (which this session belongs to)`;
      throw new DelegationRefused(
        `${whose} already has ${open} sub-agent tasks unfinished (SUBAGENT_MAX_OPEN_TASKS is ${max}); wait for them with CHECK_TASK_STATUS, or do this step yourself.`,
      );
    }
  }

  /**
   * The child session of a parent call. Its id comes from the call, so an earlier attempt cut short after creating
   * the child but before its run and the task's row (a crash, a lost connection; the call is IDEMPOTENT and is made
   * again) finds it again instead of leaving a second child that no task would ever name.
   */
  private async childSessionOf(call: DelegatingCall, target: AgentEntity, task: string): Promise<AgentSessionEntity> {
    const id = uuidFromName(`agent-task\u0000${call.tenantId}\u0000${call.sessionId}\u0000${call.toolCallId}`);
    const earlier = await this.sessionRepo.find(id);
    if (earlier?.tenantId === call.tenantId) return earlier;
    const parent = await this.sessions.load({ tenantId: call.tenantId }, call.sessionId);
    assertParentOpen(parent.id, parent.status);
    try {
      await this.sessions.create(
        { keyId: `task:${call.toolCallId}`, role: 'runtime', tenantId: call.tenantId },
        {
          agentId: target.id,
          userId: parent.userId,
          // What the parent's user may do and what its environment offers: a child is no narrower (its tools bound
          // on FILE_ROOM, SANDBOX or MCP were hidden) and no wider than its parent.
          permissions: parent.permissions,
          capabilities: parent.capabilities,
          // The session's description is the task's head, as a runtime may give one; the whole task is the run's message.
          task: { description: [...task].slice(0, SESSION_TASK_MAX_CHARS).join('') },
        },
        id,
      );
    } catch (err) {
      // Another attempt of the same call made it a moment ago.
      if (!isUniqueViolation(err)) throw err;
    }
    return this.sessions.load({ tenantId: call.tenantId }, id);
  }

  /** The task's view once its run stopped (or became INTERRUPTED), or as it is after `waitMs` or once `signal` aborts. */
  async waitFor(task: AgentTaskEntity, waitMs: number, signal?: AbortSignal): Promise<TaskView> {
    const run = await this.runs.find(task.childRunId);
    return toTaskView(task, run ? await this.agentRuns.waitForStop(run, waitMs, signal) : null);
  }

  /** The task an earlier attempt of this very call started (null when none did), as it is now. */
  async ofCall(call: DelegatingCall): Promise<TaskView | null> {
    const task = await this.tasks.findByParentCall(call.sessionId, call.toolCallId);
    if (!task || task.tenantId !== call.tenantId) return null;
    return toTaskView(task, await this.runs.find(task.childRunId));
  }

  /** A task of the calling session (another session's or tenant's is unknown). */
  async check(call: Pick<DelegatingCall, 'tenantId' | 'sessionId'>, taskId: string): Promise<TaskView | null> {
    const task = await this.tasks.find(taskId);
    if (!task || task.tenantId !== call.tenantId || task.parentSessionId !== call.sessionId) return null;
    return toTaskView(task, await this.runs.find(task.childRunId));
  }

  async markReminded(taskId: string): Promise<void> {
    await this.tasks.markReminded([taskId]);
  }

  private async subAgentNamed(parent: AgentEntity, name: string): Promise<AgentEntity> {
    const subs: AgentEntity[] = [];
    for (const id of parent.subAgentIds ?? []) {
      // A sub-agent deleted meanwhile is not offered; a database busy or unreachable is thrown, not read as one.
      const agent = await this.agents.loadAgent({ tenantId: parent.tenantId }, id).catch(nullIfNotFound);
      if (agent) subs.push(agent);
    }
    const match = subs.find((a) => a.name.toLowerCase() === name.trim().toLowerCase());
    if (!match) {
      throw new DelegationRefused(
        `${name} is not one of ${parent.name}'s sub-agents; name one of: ${subs.map((a) => a.name).join(', ') || '(none)'}`,
      );
    }
    // Refused before its child session is made: a child with no run would stay ACTIVE for good, one per attempt.
    if (!match.modelProviderId) {
      throw new DelegationRefused(
        `sub-agent ${match.name} has no model provider, so the gateway cannot run it (an admin sets its modelProviderId); do this step yourself.`,
      );
    }
    return match;
  }

  /**
   * The delegating agent and its ancestors, nearest first (length = the new task's depth), and the root session of
   * the tree (the session that is no task's child).
   */
  private async chainOf(
    sessionId: string,
    parentAgent: AgentEntity,
  ): Promise<{ chain: AgentEntity[]; rootSessionId: string }> {
    const chain = [parentAgent];
    let rootSessionId = sessionId;
    let task = await this.tasks.findByChildSession(sessionId);
    while (task) {
      const agent = await this.agents.loadAgent({ tenantId: task.tenantId }, task.parentAgentId).catch(() => null);
      chain.push(agent ?? ({ id: task.parentAgentId, name: task.parentAgentId } as AgentEntity));
      rootSessionId = task.parentSessionId;
      task = await this.tasks.findByChildSession(task.parentSessionId);
    }
    return { chain, rootSessionId };
  }
}

/**
 * A closed parent takes no task: its close already closed the children it had, and nothing would close this one (nor
 * would anyone hear of it).
 */
function assertParentOpen(sessionId: string, status: string | null): void {
  if (status === 'CLOSED')
    throw new DelegationRefused(`session ${sessionId} is closed; a closed session starts no sub-agent task.`);
}

function submittedEvent(task: AgentTaskEntity): NewSessionEvent {
  return {
    tenantId: task.tenantId,
    sessionId: task.parentSessionId,
    type: 'task.submitted',
    data: {
      taskId: task.id,
      agent: task.agentName,
      childSessionId: task.childSessionId,
      toolCallId: task.parentToolCallId,
    },
  };
}

/** A UUID made from `name` (RFC 9562 version 8: its bits are SHA-256's): the same name, the same id. */
function uuidFromName(name: string): string {
  const h = createHash('sha256').update(name).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function taskStatusOf(run: Pick<AgentRunEntity, 'status'> | null): TaskStatus {
  switch (run?.status) {
    case 'RUNNING':
      return 'RUNNING';
    case 'INTERRUPTED':
    case 'PAUSED':
      return 'INTERRUPTED';
    case 'COMPLETED':
      return 'COMPLETED';
    case 'FAILED':
      return 'FAILED';
    default:
      return 'QUEUED';
  }
}

export function toTaskView(
  task: AgentTaskEntity,
  run: Pick<AgentRunEntity, 'status' | 'answer' | 'error' | 'finishReason'> | null,
): TaskView {
  return {
    taskId: task.id,
    status: taskStatusOf(run),
    ...(run?.status === 'COMPLETED' && { answer: run.answer ?? '' }),
    ...(run?.status === 'COMPLETED' && run.finishReason !== null && { finishReason: run.finishReason }),
    ...(run?.status === 'FAILED' && { error: run.error ?? 'failed' }),
    agent: task.agentName,
    parentSessionId: task.parentSessionId,
    parentToolCallId: task.parentToolCallId,
    childSessionId: task.childSessionId,
    depth: task.depth,
    createdAt: toIso(task.createdAt)!,
  };
}
