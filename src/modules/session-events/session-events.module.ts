import { Module } from '@nestjs/common';
import { SessionEventsStore } from './session-events.store';
import { SessionEventsStreamer } from './session-events.streamer';

/** Durable, per-session ordered events: written by the code that does the work, read by runtimes. */
@Module({
  providers: [SessionEventsStore, SessionEventsStreamer],
  exports: [SessionEventsStore, SessionEventsStreamer],
})
export class SessionEventsModule {}
