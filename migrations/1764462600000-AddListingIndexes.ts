import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/** The indexes this migration adds, and the two it widens (dropped and created again with more columns). */
const ADDED: Array<[table: string, index: TableIndex]> = [
  [
    'tool_call_log',
    new TableIndex({ name: 'idx_tool_call_log_tenant_created', columnNames: ['tenant_id', 'created_at'] }),
  ],
  [
    'agent_session',
    new TableIndex({ name: 'idx_agent_session_tenant_created', columnNames: ['tenant_id', 'created_at'] }),
  ],
  ['hitl_request', new TableIndex({ name: 'idx_hitl_request_status_created', columnNames: ['status', 'created_at'] })],
  [
    'hitl_request',
    new TableIndex({ name: 'idx_hitl_request_tenant_created', columnNames: ['tenant_id', 'created_at'] }),
  ],
  ['hitl_request', new TableIndex({ name: 'idx_hitl_request_created', columnNames: ['created_at'] })],
  ['artifact', new TableIndex({ name: 'idx_artifact_tenant_size', columnNames: ['tenant_id', 'size'] })],
  ['agent_task', new TableIndex({ name: 'idx_agent_task_tenant_created', columnNames: ['tenant_id', 'created_at'] })],
  ['ai_tool', new TableIndex({ name: 'idx_ai_tool_name_key', columnNames: ['name_key'] })],
];
const WIDENED: Array<[table: string, before: TableIndex, after: TableIndex]> = [
  [
    'tool_call_log',
    new TableIndex({ name: 'idx_tool_call_log_session', columnNames: ['tenant_id', 'session_id'] }),
    new TableIndex({ name: 'idx_tool_call_log_session', columnNames: ['session_id', 'created_at'] }),
  ],
  [
    'tool_call_log',
    new TableIndex({ name: 'idx_tool_call_log_tool', columnNames: ['tenant_id', 'tool_name'] }),
    new TableIndex({ name: 'idx_tool_call_log_tool', columnNames: ['tenant_id', 'tool_name', 'created_at'] }),
  ],
  [
    'hitl_request',
    new TableIndex({ name: 'idx_hitl_request_queue', columnNames: ['tenant_id', 'status'] }),
    new TableIndex({ name: 'idx_hitl_request_queue', columnNames: ['tenant_id', 'status', 'created_at'] }),
  ],
];

/**
 * Indexes for the lists and sums that read by tenant, session or status in time order, which sorted or scanned
 * whole tables (SQLite, 200,000-300,000 rows): the admin tool-call list by tenant (810 ms: every row of the tenant
 * sorted), by tool or by session across tenants (a table scan), the session list by tenant (550 ms), the platform
 * HITL queue and the pending-request gauge (`status` was second in its index), the artifact quota's sum (a row read
 * per artifact; HITL requests are few, so every way their queue is listed has its index), retention's delete of tool calls without a session, the sub-agent task list by tenant, and the
 * platform key's tool-name clash check (a name in every scope). Each list now walks an index in its order and stops at
 * its page.
 */
export class AddListingIndexes1764462600000 implements MigrationInterface {
  name = 'AddListingIndexes1764462600000';

  async up(q: QueryRunner): Promise<void> {
    for (const [table, before, after] of WIDENED) {
      await q.dropIndex(table, before.name!);
      await q.createIndex(table, after);
    }
    for (const [table, index] of ADDED) await q.createIndex(table, index);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [table, index] of ADDED) await q.dropIndex(table, index.name!);
    for (const [table, before, after] of WIDENED) {
      await q.dropIndex(table, after.name!);
      await q.createIndex(table, before);
    }
  }
}
