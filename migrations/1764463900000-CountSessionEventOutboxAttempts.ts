import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { col } from './migration-columns';

const KEPT_AT_INDEX = new TableIndex({ name: 'idx_session_event_outbox_at', columnNames: ['at'] });
const SESSION_INDEX = new TableIndex({ name: 'idx_session_event_outbox_session', columnNames: ['session_id'] });
const DUE_INDEX = new TableIndex({
  name: 'idx_session_event_outbox_due',
  columnNames: ['given_up_at', 'retry_at', 'at'],
});

/**
 * A kept event that can never be written (its payload no longer parses, the database refuses it) was tried by every
 * outbox round, forever. The round now counts its failed attempts on the row, waits longer after each one
 * (`retry_at`) and gives up after a bounded number (`given_up_at`): the row stays for inspection and is never tried
 * again. The rounds read the rows not given up, those never tried first, through `(given_up_at, retry_at, at)`: rows
 * given up are not walked by every round, and rows waiting for a retry never fill a round ahead of new ones. Retention
 * deletes a purged session's rows through `session_id`.
 */
export class CountSessionEventOutboxAttempts1764463900000 implements MigrationInterface {
  name = 'CountSessionEventOutboxAttempts1764463900000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumns('session_event_outbox', [
      new TableColumn({ ...col.int('attempts'), default: 0 }),
      new TableColumn({ ...col.bigint('retry_at'), default: 0 }),
      new TableColumn(col.bigint('given_up_at', true)),
    ]);
    await q.dropIndex('session_event_outbox', KEPT_AT_INDEX.name!);
    await q.createIndex('session_event_outbox', DUE_INDEX);
    await q.createIndex('session_event_outbox', SESSION_INDEX);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('session_event_outbox', SESSION_INDEX.name!);
    await q.dropIndex('session_event_outbox', DUE_INDEX.name!);
    await q.createIndex('session_event_outbox', KEPT_AT_INDEX);
    for (const column of ['given_up_at', 'retry_at', 'attempts']) await q.dropColumn('session_event_outbox', column);
  }
}
