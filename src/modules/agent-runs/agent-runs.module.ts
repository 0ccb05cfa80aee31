import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoopActingModule } from '@app/modules/loop-acting/loop-acting.module';
import { AgentConfigModule } from '@app/modules/agent-config/agent-config.module';
import { ModelProvidersModule } from '@app/modules/model-providers/model-providers.module';
import { SessionEventsModule } from '@app/modules/session-events/session-events.module';
import { AgentRunEntity } from './agent-run.entity';
import { AgentMessageEntity } from './agent-message.entity';
import { AgentRunsRepository } from './agent-runs.repository';
import { AgentMessagesRepository } from './agent-messages.repository';
import { AgentRunQueue } from './agent-run.queue';
import { AgentRunNotifier } from './agent-run.notifier';
import { AgentRunLoop } from './agent-run.loop';
import { AgentRunWorker } from './agent-run.worker';
import { AgentRunWaker } from './agent-run.waker';
import { AgentRunsService } from './agent-runs.service';
import { AgentRunsController } from './agent-runs.controller';
import { AgentTaskEntity } from './subagents/agent-task.entity';
import { SubagentTasksCloseHook } from './subagents/subagent-tasks.close-hook';
import { SubagentCloseRecoveryJob } from './subagents/subagent-tasks.close-recovery.job';
import { AgentTasksRepository } from './subagents/agent-tasks.repository';
import { AgentTasksService } from './subagents/agent-tasks.service';
import { SubagentBuiltinsDispatcher } from './subagents/subagent-builtins.dispatcher';
import { AgentTasksAdminController } from './subagents/agent-tasks-admin.controller';
import { ToolRegistryModule } from '@app/modules/tool-registry/tool-registry.module';
import { ExecutorsModule } from '@app/modules/executors/executors.module';
import { MetricsModule } from '@app/modules/metrics/metrics.module';
import { AgentRunMetricsCollector } from './agent-run-metrics.collector';
import { TaskReminders } from './subagents/task-reminders';

/** The gateway's own agent loop: runs on a durable queue, their checkpoints and conversations; sub-agent tasks. */
@Module({
  imports: [
    TypeOrmModule.forFeature([AgentRunEntity, AgentMessageEntity, AgentTaskEntity]),
    LoopActingModule,
    AgentConfigModule,
    ModelProvidersModule,
    SessionEventsModule,
    ToolRegistryModule,
    ExecutorsModule,
    MetricsModule,
  ],
  controllers: [AgentRunsController, AgentTasksAdminController],
  providers: [
    AgentRunsRepository,
    AgentMessagesRepository,
    AgentRunQueue,
    AgentRunNotifier,
    AgentRunLoop,
    AgentRunWorker,
    AgentRunWaker,
    AgentRunsService,
    AgentTasksRepository,
    AgentTasksService,
    SubagentTasksCloseHook,
    SubagentCloseRecoveryJob,
    SubagentBuiltinsDispatcher,
    AgentRunMetricsCollector,
    TaskReminders,
  ],
})
export class AgentRunsModule {}
