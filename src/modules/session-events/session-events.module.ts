import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SessionEventEntity } from './session-event.entity';
import { SessionEventsStore } from './session-events.store';
import { SessionEventsStreamer } from './session-events.streamer';

/** Durable, per-session ordered events: written by the code that does the work, read by runtimes. */
@Module({
  imports: [TypeOrmModule.forFeature([SessionEventEntity])],
  providers: [SessionEventsStore, SessionEventsStreamer],
  exports: [SessionEventsStore, SessionEventsStreamer],
})
export class SessionEventsModule {}
