import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { col } from './migration-columns';

/** The audit trail of tool calls (arguments stored redacted). */
export class CreateToolCallLog1764460900000 implements MigrationInterface {
  name = 'CreateToolCallLog1764460900000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'tool_call_log',
        columns: [
          col.id(),
          col.varchar('tenant_id', 64, true),
          col.varchar('session_id', 36, true),
          col.varchar('agent_id', 36, true),
          col.varchar('user_id', 128, true),
          col.varchar('tool_call_id', 128, true),
          col.varchar('tool_id', 36, true),
          col.varchar('tool_name', 64),
          col.varchar('status', 24),
          col.varchar('entry', 8),
          col.text('arguments_redacted'),
          col.int('attempts'),
          col.int('duration_ms'),
          col.varchar('error_class', 32, true),
          col.int('result_chars'),
          col.text('result_preview'),
          col.bigint('created_at'),
        ],
        indices: [
          new TableIndex({ name: 'idx_tool_call_log_session', columnNames: ['tenant_id', 'session_id'] }),
          new TableIndex({ name: 'idx_tool_call_log_tool', columnNames: ['tenant_id', 'tool_name'] }),
          new TableIndex({ name: 'idx_tool_call_log_created', columnNames: ['created_at'] }),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('tool_call_log');
  }
}
