import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { col } from './migration-columns';

const INDEX = new TableIndex({
  name: 'uq_session_event_once_key',
  columnNames: ['session_id', 'once_key'],
  isUnique: true,
});

/**
 * An event that must reach a session's stream exactly once (`hitl.decided:<request>`) carries a key: every path that
 * carries a decision out records it, and the unique key keeps the one a crashed first attempt had already written.
 * Other events, and every existing row, have none (NULLs never collide).
 */
export class AddSessionEventOnceKey1764463700000 implements MigrationInterface {
  name = 'AddSessionEventOnceKey1764463700000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('session_event', new TableColumn(col.varchar('once_key', 64, true)));
    await q.createIndex('session_event', INDEX);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('session_event', INDEX.name!);
    await q.dropColumn('session_event', 'once_key');
  }
}
