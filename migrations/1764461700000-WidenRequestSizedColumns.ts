import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The columns that keep request-sized data: a call's full arguments, the interrupted batch, a session's
 * permissions (1,000 of 128 characters) and todo list (100 items of 500), and an MCP service's last sync report
 * (every listed tool by name), a reviewer's message (20,000 characters as class-validator counts them: 80 KB
 * of emoji). `@LargeText()` marks them in the entities.
 */
const COLUMNS = [
  { table: 'tool_call_journal', column: 'arguments_json', nullable: false },
  { table: 'agent_session', column: 'pending_batch', nullable: true },
  { table: 'agent_session', column: 'permissions', nullable: false },
  { table: 'agent_session', column: 'todo_list', nullable: false },
  { table: 'mcp_service', column: 'last_sync_result', nullable: true },
  { table: 'hitl_request', column: 'decision_message', nullable: true },
];

/**
 * Arguments up to the documented limit (8 MiB of JSON) work on MySQL as on SQLite: the columns that keep them
 * become LONGTEXT there (TEXT holds 64 KB, and answered 500). SQLite's TEXT has no such limit: nothing changes on it.
 */
export class WidenRequestSizedColumns1764461700000 implements MigrationInterface {
  name = 'WidenRequestSizedColumns1764461700000';

  async up(q: QueryRunner): Promise<void> {
    await alter(q, 'longtext');
  }

  async down(q: QueryRunner): Promise<void> {
    await alter(q, 'text');
  }
}

async function alter(q: QueryRunner, type: 'longtext' | 'text'): Promise<void> {
  if (q.connection.options.type === 'better-sqlite3') return;
  for (const c of COLUMNS) {
    await q.query(`ALTER TABLE \`${c.table}\` MODIFY \`${c.column}\` ${type} ${c.nullable ? 'NULL' : 'NOT NULL'}`);
  }
}
