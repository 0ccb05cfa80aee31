import { Injectable, OnModuleInit } from '@nestjs/common';
import { SessionRemindersRegistry } from '@app/modules/agent-config/reminders/session-reminders.registry';
import { AgentTasksRepository } from './agent-tasks.repository';
import { taskStatusOf } from './agent-tasks.service';

/** Finished sub-agent tasks whose parent's model has not been told yet: one reminder line each. */
export interface PendingTaskReminders {
  lines: string[];
  taskIds: string[];
}

/**
 * The finished-task reminders of a parent session, for `tool-specs` with `sessionId` (registered with the
 * {@link SessionRemindersRegistry}) and for the gateway's own loop, which marks them told after the model's answer.
 * CHECK_TASK_STATUS marks a task told when it reports how the task ended (so does SUB_AGENT_CALL's answer).
 */
@Injectable()
export class TaskReminders implements OnModuleInit {
  constructor(
    private readonly tasks: AgentTasksRepository,
    private readonly registry: SessionRemindersRegistry,
  ) {}

  onModuleInit(): void {
    this.registry.register(async (session) => (await this.pending(session.id)).lines);
  }

  async pending(sessionId: string): Promise<PendingTaskReminders> {
    const open = await this.tasks.unreminded(sessionId);
    if (open.length === 0) return { lines: [], taskIds: [] };
    const runs = await this.tasks.runsOf(open, 0);
    const done = open.filter((t) => ['COMPLETED', 'FAILED'].includes(taskStatusOf(runs.get(t.childRunId) ?? null)));
    return {
      lines: done.map(
        (t) =>
          `Sub-agent task ${t.id} (${t.agentName}) finished: ${taskStatusOf(runs.get(t.childRunId) ?? null)}. Read its answer with CHECK_TASK_STATUS {"taskId":"${t.id}"}.`,
      ),
      taskIds: done.map((t) => t.id),
    };
  }

  async markTold(taskIds: readonly string[]): Promise<void> {
    await this.tasks.markReminded(taskIds);
  }
}
