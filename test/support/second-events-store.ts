import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { HotSql } from '@app/database/hot-sql';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import { SessionEventOutboxRepository } from '@app/modules/session-events/session-event-outbox.repository';
import { SessionEventWriteFault } from '@app/modules/session-events/session-event-write.fault';

/**
 * An events store of another gateway instance on the same database: its own queue and writer, racing the app's on
 * the primary key and once-keys, and not waking the app's event streams.
 */
export function secondEventsStore(app: INestApplication): SessionEventsStore {
  return new SessionEventsStore(
    app.get(DataSource),
    app.get(HotSql),
    app.get(SessionEventOutboxRepository),
    app.get(SessionEventWriteFault),
  );
}
