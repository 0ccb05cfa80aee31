import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { col } from './migration-columns';

/**
 * Who chose a NACOS service's namespace (`TENANT`: its tenant's admin, kept within NACOS_TENANT_NAMESPACES at every
 * lookup; `PLATFORM`: the platform admin). Before, a namespace the platform later moved to another tenant was still
 * read for the tenant that had chosen it. Existing rows stay NULL: nobody knows who chose theirs, so they keep
 * today's behaviour (as the platform's) and an upgrade breaks no service the platform assigned.
 */
export class AddMcpServiceNamespaceChooser1764463640000 implements MigrationInterface {
  name = 'AddMcpServiceNamespaceChooser1764463640000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('mcp_service', new TableColumn(col.varchar('namespace_chosen_by', 16, true)));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('mcp_service', 'namespace_chosen_by');
  }
}
