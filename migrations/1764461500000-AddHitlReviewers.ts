import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { col } from './migration-columns';

/**
 * HITL decided by an admin: the agent's `hitl_reviewer` (RUNTIME or ADMIN), and a `decided_by` wide enough for
 * "<reviewer> (key <keyId>)", and an index that lets the dead-owner sweep find expired STARTED entries without
 * scanning the journal.
 */
export class AddHitlReviewers1764461500000 implements MigrationInterface {
  name = 'AddHitlReviewers1764461500000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('agent', new TableColumn({ ...col.varchar('hitl_reviewer', 16), default: "'RUNTIME'" }));
    await q.changeColumn('hitl_request', 'decided_by', new TableColumn(col.varchar('decided_by', 255, true)));
    // On SQLite only the STARTED entries (the calls in flight) are indexed: a tiny index, cheaper on every journal write.
    const where = q.connection.options.type === 'better-sqlite3' ? "state = 'STARTED'" : undefined;
    await q.createIndex(
      'tool_call_journal',
      new TableIndex({ name: 'idx_tool_call_journal_lease', columnNames: ['state', 'lease_expires_at'], where }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('tool_call_journal', 'idx_tool_call_journal_lease');
    await q.changeColumn('hitl_request', 'decided_by', new TableColumn(col.varchar('decided_by', 64, true)));
    await q.dropColumn('agent', 'hitl_reviewer');
  }
}
