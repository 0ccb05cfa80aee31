import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { col } from './migration-columns';
import { EXACT_COLLATION } from './1764462800000-ExactIdentifierCollation';

/**
 * An event whose state a transaction commits is kept here in that transaction, and removed once written to
 * session_event: a process killed between the commit and the write leaves it here, and another round writes it
 * (exactly once, by its once_key) instead of the state being saved with its event lost.
 */
export class CreateSessionEventOutbox1764463800000 implements MigrationInterface {
  name = 'CreateSessionEventOutbox1764463800000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'session_event_outbox',
        columns: [
          col.id(),
          col.varchar('session_id', 36),
          col.varchar('tenant_id', 64),
          col.varchar('type', 32),
          col.bigint('at'),
          col.text('data'),
          col.varchar('once_key', 64),
        ],
        indices: [new TableIndex({ name: 'idx_session_event_outbox_at', columnNames: ['at'] })],
      }),
    );
    // A tenant id is compared exactly, as in every other table (see ExactIdentifierCollation); SQLite's `=` already is.
    if (q.connection.options.type !== 'better-sqlite3')
      await q.query(
        `ALTER TABLE session_event_outbox MODIFY tenant_id varchar(64) CHARACTER SET utf8mb4 COLLATE ${EXACT_COLLATION} NOT NULL`,
      );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('session_event_outbox');
  }
}
