import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { col } from './migration-columns';

/**
 * The gateway's own agent loop: model providers, runs (the durable queue and checkpoint of each run) and the
 * conversation of each session (user, assistant and tool messages, in order).
 */
export class CreateAgentRunTables1764462400000 implements MigrationInterface {
  name = 'CreateAgentRunTables1764462400000';

  async up(q: QueryRunner): Promise<void> {
    const mysql = q.connection.options.type !== 'better-sqlite3';
    const large = (name: string, nullable: boolean) => ({
      ...col.text(name, nullable),
      type: mysql ? 'longtext' : 'text',
    });
    await q.createTable(
      new Table({
        name: 'model_provider',
        columns: [
          col.id(),
          col.varchar('tenant_id', 64, true),
          col.varchar('name', 128),
          col.varchar('kind', 32),
          col.varchar('base_url', 2048),
          col.varchar('api_key_ref', 128, true),
          col.varchar('model', 256),
          col.text('options', true),
          col.int('version'),
          col.bigint('created_at'),
          col.bigint('updated_at'),
        ],
        indices: [new TableIndex({ name: 'idx_model_provider_tenant', columnNames: ['tenant_id'] })],
      }),
    );
    await q.createTable(
      new Table({
        name: 'agent_run',
        columns: [
          col.id(),
          col.varchar('tenant_id', 64),
          col.varchar('session_id', 36),
          col.varchar('agent_id', 36),
          col.varchar('client_message_id', 128),
          col.varchar('status', 16),
          col.int('iterations'),
          col.int('act_iteration'),
          large('pending_calls', true),
          large('answer', true),
          col.text('error', true),
          col.text('hitl_request', true),
          col.varchar('owner', 128, true),
          col.bigint('lease_until'),
          col.bigint('not_before'),
          col.bigint('created_at'),
          col.bigint('updated_at'),
          col.bigint('finished_at', true),
        ],
        indices: [
          new TableIndex({
            name: 'uq_agent_run_session_message',
            columnNames: ['session_id', 'client_message_id'],
            isUnique: true,
          }),
          new TableIndex({ name: 'idx_agent_run_status', columnNames: ['status', 'lease_until'] }),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'agent_message',
        columns: [
          col.id(),
          col.varchar('session_id', 36),
          col.int('seq'),
          col.varchar('tenant_id', 64),
          col.varchar('run_id', 36),
          col.varchar('role', 16),
          large('content', true),
          large('tool_calls', true),
          col.varchar('tool_call_id', 128, true),
          col.bigint('created_at'),
        ],
        indices: [
          new TableIndex({ name: 'uq_agent_message_session_seq', columnNames: ['session_id', 'seq'], isUnique: true }),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('agent_message');
    await q.dropTable('agent_run');
    await q.dropTable('model_provider');
  }
}
