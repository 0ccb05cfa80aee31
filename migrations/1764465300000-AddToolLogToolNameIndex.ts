import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';
import { createIndexIfMissing, dropIndexIfPresent } from './migration-steps';

const INDEX = new TableIndex({ name: 'idx_tool_call_log_tool_created', columnNames: ['tool_name', 'created_at'] });

/**
 * GET /admin/tool-calls?toolName= of the platform admin (no tenant): idx_tool_call_log_tool leads with the tenant, so
 * that list read the whole tool log and sorted every call of the tool for each page.
 */
export class AddToolLogToolNameIndex1764465300000 implements MigrationInterface {
  name = 'AddToolLogToolNameIndex1764465300000';

  async up(q: QueryRunner): Promise<void> {
    await createIndexIfMissing(q, 'tool_call_log', INDEX);
  }

  async down(q: QueryRunner): Promise<void> {
    await dropIndexIfPresent(q, 'tool_call_log', INDEX.name!);
  }
}
