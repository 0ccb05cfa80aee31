import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';
import { col } from './migration-columns';

/** Tenant secrets (values encrypted with SECRETS_KEY), and the header templates of MCP services. */
export class CreateTenantSecrets1764461300000 implements MigrationInterface {
  name = 'CreateTenantSecrets1764461300000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'tenant_secret',
        columns: [
          { ...col.varchar('tenant_id', 64), isPrimary: true },
          { ...col.varchar('name', 64), isPrimary: true },
          col.text('value_encrypted'),
          col.bigint('created_at'),
          col.bigint('updated_at'),
        ],
      }),
    );
    await q.addColumn('mcp_service', new TableColumn(col.text('headers', true)));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('mcp_service', 'headers');
    await q.dropTable('tenant_secret');
  }
}
