import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The retention job reads `agent_session WHERE status = 'CLOSED' AND updated_at < ?` every interval: without an
 * index that is a full scan of the sessions table. On SQLite the index is partial (only CLOSED sessions), so the
 * session write of every act never touches it; MySQL has no partial indexes and keeps the full one.
 */
export class AddSessionRetentionIndex1764461600000 implements MigrationInterface {
  name = 'AddSessionRetentionIndex1764461600000';

  async up(q: QueryRunner): Promise<void> {
    const where = q.connection.options.type === 'better-sqlite3' ? "status = 'CLOSED'" : undefined;
    await q.createIndex(
      'agent_session',
      new TableIndex({ name: 'idx_agent_session_status_updated', columnNames: ['status', 'updated_at'], where }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('agent_session', 'idx_agent_session_status_updated');
  }
}
