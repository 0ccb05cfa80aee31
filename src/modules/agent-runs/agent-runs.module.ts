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
import { AgentRunsService } from './agent-runs.service';
import { AgentRunsController } from './agent-runs.controller';

/** The gateway's own agent loop: runs on a durable queue, their checkpoints and conversations. */
@Module({
  imports: [
    TypeOrmModule.forFeature([AgentRunEntity, AgentMessageEntity]),
    LoopActingModule,
    AgentConfigModule,
    ModelProvidersModule,
    SessionEventsModule,
  ],
  controllers: [AgentRunsController],
  providers: [
    AgentRunsRepository,
    AgentMessagesRepository,
    AgentRunQueue,
    AgentRunNotifier,
    AgentRunLoop,
    AgentRunWorker,
    AgentRunsService,
  ],
})
export class AgentRunsModule {}
