import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { col } from './migration-columns';

/** Per-tenant configuration version stamps, so a write in one tenant does not reload every tenant's caches. */
export class CreateTenantConfigVersion1764461200000 implements MigrationInterface {
  name = 'CreateTenantConfigVersion1764461200000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'tenant_config_version',
        columns: [{ ...col.varchar('tenant_id', 64), isPrimary: true }, col.bigint('version')],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('tenant_config_version');
  }
}
