import { Module } from '@nestjs/common';
import { MetricsModule } from '@app/modules/metrics/metrics.module';
import { SessionEventsStore } from './session-events.store';
import { SessionEventsStreamer } from './session-events.streamer';
import { SessionEventOutboxRepository } from './session-event-outbox.repository';
import { SessionEventOutboxRecovery } from './session-event-outbox.recovery';
import { SessionEventOutboxJob } from './session-event-outbox.job';
import { SessionEventWriteFault } from './session-event-write.fault';

/** Durable, per-session ordered events: written by the code that does the work, read by runtimes. */
@Module({
  imports: [MetricsModule],
  providers: [
    SessionEventsStore,
    SessionEventsStreamer,
    SessionEventOutboxRepository,
    SessionEventOutboxRecovery,
    SessionEventOutboxJob,
    SessionEventWriteFault,
  ],
  exports: [SessionEventsStore, SessionEventsStreamer],
})
export class SessionEventsModule {}
