import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';
import { createIndexIfMissing, dropIndexIfPresent } from './migration-steps';

const INDEX = 'idx_agent_session_status_updated';

/**
 * SESSION_IDLE_CLOSE_DAYS reads `agent_session WHERE status = 'ACTIVE' (or 'INTERRUPTED') AND updated_at < ?`: on
 * SQLite the status index held only CLOSED sessions (AddSessionRetentionIndex), so each of its pages scanned and
 * sorted the whole table. It now holds every session, as on MySQL (where it always did: nothing to do there); the
 * price is one index write when an act of a new iteration marks its session changed (about 5 us).
 */
export class IndexOpenSessionsByChange1764465500000 implements MigrationInterface {
  name = 'IndexOpenSessionsByChange1764465500000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'better-sqlite3') return;
    await dropIndexIfPresent(q, 'agent_session', INDEX);
    await createIndexIfMissing(
      q,
      'agent_session',
      new TableIndex({ name: INDEX, columnNames: ['status', 'updated_at'] }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'better-sqlite3') return;
    await dropIndexIfPresent(q, 'agent_session', INDEX);
    await createIndexIfMissing(
      q,
      'agent_session',
      new TableIndex({ name: INDEX, columnNames: ['status', 'updated_at'], where: "status = 'CLOSED'" }),
    );
  }
}
