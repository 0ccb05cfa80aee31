import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';
import { createIndexIfMissing, dropIndexIfPresent } from './migration-steps';

/**
 * GET /admin/sessions of the platform admin (no tenant filter): newest first, by agent (`agentId=`) or by status
 * (`status=`). Only the tenant's lists had an index (idx_agent_session_tenant_created), so these read every session of
 * every tenant and sorted them all for each page. created_at and agent_id never change after the insert; status
 * changes with the session's state, as in idx_agent_session_tenant.
 */
const INDEXES = [
  new TableIndex({ name: 'idx_agent_session_created', columnNames: ['created_at'] }),
  new TableIndex({ name: 'idx_agent_session_agent_created', columnNames: ['agent_id', 'created_at'] }),
  new TableIndex({ name: 'idx_agent_session_status_created', columnNames: ['status', 'created_at'] }),
];

export class AddSessionListIndexes1764465200000 implements MigrationInterface {
  name = 'AddSessionListIndexes1764465200000';

  async up(q: QueryRunner): Promise<void> {
    for (const index of INDEXES) await createIndexIfMissing(q, 'agent_session', index);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const index of [...INDEXES].reverse()) await dropIndexIfPresent(q, 'agent_session', index.name!);
  }
}
