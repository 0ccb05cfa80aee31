import { ApiKeysModule } from '@app/modules/api-keys/api-keys.module';
import { Module } from '@nestjs/common';
import { MetricsModule } from '@app/modules/metrics/metrics.module';
import { AgentConfigModule } from '@app/modules/agent-config/agent-config.module';
import { ToolRegistryModule } from '@app/modules/tool-registry/tool-registry.module';
import { SessionEventsModule } from '@app/modules/session-events/session-events.module';
import { SessionEventsController } from './sessions/session-events.controller';
import { SessionEventsStreamController } from './sessions/session-events-stream.controller';
import { SessionsAdminController } from './sessions/sessions-admin.controller';
import { SessionCloseHooks } from './sessions/session-close.hooks';
import { SandboxModule } from '@app/modules/sandbox/sandbox.module';
import { HitlModule } from '@app/modules/hitl/hitl.module';
import { ExecutorsModule } from '@app/modules/executors/executors.module';
import { ToolInvocationModule } from '@app/modules/tool-invocation/tool-invocation.module';
import { SessionStoreModule } from './sessions/session-store.module';
import { SessionsService } from './sessions/sessions.service';
import { SessionsController } from './sessions/sessions.controller';
import { ToolCallJournalRepository } from './journal/tool-call-journal.repository';
import { JournalLeaseRenewer } from './journal/journal-lease.renewer';
import { JournalOutcomeRecorder } from './journal/journal-outcome.recorder';
import { JournalAdminController } from './journal/journal-admin.controller';
import { ToolResultStore } from './results/tool-result.store';
import { ToolResultReader } from './results/tool-result.reader';
import { CallRunner } from './acting/call-runner';
import { BatchRunner } from './acting/batch-runner';
import { ActService } from './acting/act.service';
import { ActStateQuery } from './acting/act-state.query';
import { ResumeService } from './acting/resume.service';
import { ResumeRecordRepository } from './acting/resume-record.repository';
import { ResumeClaimRenewer } from './acting/resume-claim.renewer';
import { ResumeDecisionApplier } from './acting/resume-decision.applier';
import { ResumeDecisionChecks } from './acting/resume-decision.checks';
import { FaultInjector } from './acting/fault-injector';
import { SessionBuiltinsDispatcher } from './builtins/session-builtins.dispatcher';
import { TodoReminderSource } from './builtins/todo-reminder.source';
import { HitlDecisionService } from './acting/hitl-decision.service';
import { HitlDecisionController } from './acting/hitl-decision.controller';
import { JournalOrphanSweepService } from './journal/journal-orphan-sweep.service';
import { JournalOrphanSweepJob } from './journal/journal-orphan-sweep.job';
import { AbandonedDecisionRecovery } from './acting/abandoned-decision.recovery';
import { AbandonedDecisionJob } from './acting/abandoned-decision.job';

/** Sessions, the idempotency journal, the result store, act and resume. */
@Module({
  imports: [
    SessionStoreModule,
    AgentConfigModule,
    ToolRegistryModule,
    HitlModule,
    ExecutorsModule,
    ToolInvocationModule,
    MetricsModule,
    SessionEventsModule,
    SandboxModule,
    ApiKeysModule,
  ],
  controllers: [
    SessionsController,
    SessionEventsController,
    SessionEventsStreamController,
    SessionsAdminController,
    JournalAdminController,
    HitlDecisionController,
  ],
  providers: [
    SessionsService,
    SessionCloseHooks,
    ToolCallJournalRepository,
    JournalLeaseRenewer,
    JournalOutcomeRecorder,
    ToolResultStore,
    ToolResultReader,
    CallRunner,
    BatchRunner,
    ActService,
    ActStateQuery,
    ResumeService,
    ResumeRecordRepository,
    ResumeClaimRenewer,
    ResumeDecisionApplier,
    ResumeDecisionChecks,
    FaultInjector,
    SessionBuiltinsDispatcher,
    TodoReminderSource,
    HitlDecisionService,
    JournalOrphanSweepService,
    JournalOrphanSweepJob,
    AbandonedDecisionRecovery,
    AbandonedDecisionJob,
  ],
  exports: [
    SessionsService,
    SessionCloseHooks,
    ToolResultStore,
    ToolResultReader,
    ActService,
    SessionStoreModule,
    ToolCallJournalRepository,
  ],
})
export class LoopActingModule {}
