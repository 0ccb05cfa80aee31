import { MigrationInterface, QueryRunner, Table, TableIndex, TableUnique } from 'typeorm';
import { col } from './migration-columns';

/** MCP services (Nacos or static URL) whose tools the sync keeps in `ai_tool`, and the per-service sync lease. */
export class CreateMcpServiceTables1764461100000 implements MigrationInterface {
  name = 'CreateMcpServiceTables1764461100000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'mcp_service',
        columns: [
          col.id(),
          col.varchar('name', 64),
          col.varchar('kind', 16),
          col.varchar('url', 2048, true),
          col.varchar('service_name', 200, true),
          col.varchar('group_name', 128, true),
          col.varchar('namespace_id', 128, true),
          col.varchar('transport', 16, true),
          col.varchar('path', 512, true),
          col.varchar('tenant_id', 64, true),
          col.varchar('scope_key', 64),
          col.varchar('tool_prefix', 32),
          col.varchar('health', 16),
          col.text('health_reason', true),
          col.bigint('last_sync_at', true),
          col.varchar('last_list_hash', 64, true),
          col.text('last_sync_result', true),
          col.bigint('created_at'),
          col.bigint('updated_at'),
        ],
        uniques: [new TableUnique({ name: 'uq_mcp_service_scope_name', columnNames: ['scope_key', 'name'] })],
        indices: [new TableIndex({ name: 'idx_mcp_service_tenant', columnNames: ['tenant_id'] })],
      }),
    );
    await q.createTable(
      new Table({
        name: 'mcp_sync_lease',
        columns: [
          { ...col.varchar('service_key', 512), isPrimary: true },
          col.varchar('owner', 128),
          col.bigint('expires_at'),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('mcp_sync_lease');
    await q.dropTable('mcp_service');
  }
}
