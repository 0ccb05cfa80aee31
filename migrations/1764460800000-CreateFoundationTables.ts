import { MigrationInterface, QueryRunner, Table, TableIndex, TableUnique } from 'typeorm';
import { col } from './migration-columns';

/** Registry, agents, bindings, API keys, tenant capabilities and the config version stamp. */
export class CreateFoundationTables1764460800000 implements MigrationInterface {
  name = 'CreateFoundationTables1764460800000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'ai_tool',
        columns: [
          col.id(),
          col.varchar('tenant_id', 64, true),
          col.varchar('scope_key', 64),
          col.varchar('name', 64),
          col.text('description'),
          col.text('parameters'),
          col.varchar('service_type', 16),
          col.varchar('endpoint', 2048),
          col.varchar('http_method', 8, true),
          col.text('headers', true),
          col.int('timeout_ms', true),
          col.text('permission_tags'),
          col.text('tags'),
          col.varchar('side_effect', 16),
          col.varchar('remote_name', 128, true),
          col.text('requires'),
          col.bool('enabled'),
          col.varchar('status', 16),
          col.varchar('source', 16),
          col.int('version'),
          col.text('hitl', true),
          col.text('result_policy', true),
          col.varchar('mcp_service_id', 36, true),
          col.varchar('definition_checksum', 64, true),
          col.bigint('created_at'),
          col.bigint('updated_at'),
        ],
        uniques: [new TableUnique({ name: 'uq_ai_tool_scope_name', columnNames: ['scope_key', 'name'] })],
        indices: [
          new TableIndex({ name: 'idx_ai_tool_tenant', columnNames: ['tenant_id'] }),
          new TableIndex({ name: 'idx_ai_tool_source', columnNames: ['source'] }),
          new TableIndex({ name: 'idx_ai_tool_mcp_service', columnNames: ['mcp_service_id'] }),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'agent',
        columns: [
          col.id(),
          col.varchar('tenant_id', 64),
          col.varchar('name', 128),
          col.text('description', true),
          col.varchar('web_search_mode', 16),
          col.varchar('side_effect_policy', 24),
          col.int('max_iterations'),
          col.text('skill_ids'),
          col.bigint('created_at'),
          col.bigint('updated_at'),
        ],
        uniques: [new TableUnique({ name: 'uq_agent_tenant_name', columnNames: ['tenant_id', 'name'] })],
        indices: [new TableIndex({ name: 'idx_agent_tenant', columnNames: ['tenant_id'] })],
      }),
    );
    await q.createTable(
      new Table({
        name: 'agent_tool_binding',
        columns: [
          { ...col.varchar('agent_id', 36), isPrimary: true },
          { ...col.varchar('tool_id', 36), isPrimary: true },
          col.bigint('created_at'),
        ],
        indices: [new TableIndex({ name: 'idx_agent_tool_binding_tool', columnNames: ['tool_id'] })],
      }),
    );
    await q.createTable(
      new Table({
        name: 'api_key',
        columns: [
          col.id(),
          col.varchar('name', 128),
          col.varchar('role', 16),
          col.varchar('tenant_id', 64),
          col.varchar('key_hash', 64),
          col.varchar('key_prefix', 16),
          col.bigint('created_at'),
        ],
        uniques: [new TableUnique({ name: 'uq_api_key_hash', columnNames: ['key_hash'] })],
        indices: [new TableIndex({ name: 'idx_api_key_tenant', columnNames: ['tenant_id'] })],
      }),
    );
    await q.createTable(
      new Table({
        name: 'tenant_capability',
        columns: [
          { ...col.varchar('tenant_id', 64), isPrimary: true },
          col.bool('web_search'),
          col.bigint('updated_at'),
        ],
      }),
    );
    await q.createTable(
      new Table({ name: 'config_version', columns: [{ ...col.int('id'), isPrimary: true }, col.bigint('version')] }),
    );
    await q.query('INSERT INTO config_version (id, version) VALUES (1, 1)');
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['config_version', 'tenant_capability', 'api_key', 'agent_tool_binding', 'agent', 'ai_tool']) {
      await q.dropTable(table);
    }
  }
}
