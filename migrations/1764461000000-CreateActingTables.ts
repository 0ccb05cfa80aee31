import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { col } from './migration-columns';

/** Sessions (the checkpoint), the idempotency journal, result chunks, HITL requests and resume records. */
export class CreateActingTables1764461000000 implements MigrationInterface {
  name = 'CreateActingTables1764461000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'agent_session',
        columns: [
          col.id(),
          col.varchar('tenant_id', 64),
          col.varchar('agent_id', 36),
          col.varchar('user_id', 128),
          col.text('permissions'),
          col.text('capabilities'),
          col.varchar('status', 16),
          col.int('iteration'),
          col.int('iteration_budget'),
          col.bool('hitl_pending'),
          col.text('hitl_request', true),
          col.text('pending_batch', true),
          col.text('todo_list'),
          col.text('active_skill', true),
          col.int('lock_version'),
          col.bigint('created_at'),
          col.bigint('updated_at'),
        ],
        indices: [new TableIndex({ name: 'idx_agent_session_tenant', columnNames: ['tenant_id', 'status'] })],
      }),
    );
    await q.createTable(
      new Table({
        name: 'tool_call_journal',
        columns: [
          { ...col.varchar('tenant_id', 64), isPrimary: true },
          { ...col.varchar('session_id', 36), isPrimary: true },
          { ...col.varchar('tool_call_id', 128), isPrimary: true },
          col.varchar('tool_name', 64),
          col.varchar('tool_id', 36, true),
          col.varchar('fingerprint', 64),
          col.text('arguments_json'),
          col.varchar('side_effect', 16),
          col.varchar('state', 16),
          col.varchar('result_status', 16, true),
          col.int('attempts'),
          col.int('iteration'),
          col.varchar('owner', 100),
          col.bigint('lease_expires_at'),
          col.bigint('started_at'),
          col.bigint('finished_at', true),
          col.int('duration_ms', true),
          col.bool('is_error'),
          col.varchar('error_class', 32, true),
          col.text('content', true),
          col.int('total_chars'),
          col.int('result_chunks'),
          col.int('inline_limit'),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'tool_result_chunk',
        columns: [
          { ...col.varchar('session_id', 36), isPrimary: true },
          { ...col.varchar('tool_call_id', 128), isPrimary: true },
          { ...col.int('seq'), isPrimary: true },
          col.text('content'),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'hitl_request',
        columns: [
          col.id(),
          col.varchar('tenant_id', 64),
          col.varchar('session_id', 36),
          col.varchar('agent_id', 36),
          col.varchar('request_type', 24),
          col.varchar('tool_name', 64, true),
          col.varchar('tool_call_id', 128, true),
          col.varchar('fingerprint', 64, true),
          col.text('prompt_message'),
          col.text('tool_params'),
          col.text('trigger_reason'),
          col.int('iteration'),
          col.varchar('status', 16),
          col.varchar('decision', 16, true),
          col.text('decision_message', true),
          col.varchar('decided_by', 64, true),
          col.bigint('decided_at', true),
          col.varchar('client_message_id', 128, true),
          col.bigint('created_at'),
        ],
        indices: [
          new TableIndex({ name: 'idx_hitl_request_queue', columnNames: ['tenant_id', 'status'] }),
          new TableIndex({ name: 'idx_hitl_request_session', columnNames: ['session_id'] }),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'resume_record',
        columns: [
          { ...col.varchar('session_id', 36), isPrimary: true },
          { ...col.varchar('client_message_id', 128), isPrimary: true },
          col.varchar('state', 16),
          col.int('response_chunks'),
          col.bigint('created_at'),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['resume_record', 'hitl_request', 'tool_result_chunk', 'tool_call_journal', 'agent_session'])
      await q.dropTable(table);
  }
}
