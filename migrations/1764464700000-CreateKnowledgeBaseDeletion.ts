import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { col } from './migration-columns';
import { collateColumns, EXACT_COLLATION } from './1764462800000-ExactIdentifierCollation';

/**
 * A knowledge base being deleted: its row and documents go in one transaction with this mark, its passages and terms
 * after it in bounded batches. A process that dies in between leaves the mark, and the deletion job finishes the rest;
 * before, it left the base listed and searchable with part of its passages gone.
 */
export class CreateKnowledgeBaseDeletion1764464700000 implements MigrationInterface {
  name = 'CreateKnowledgeBaseDeletion1764464700000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'knowledge_base_deletion',
        columns: [col.id(), col.varchar('tenant_id', 64), col.bigint('started_at')],
      }),
    );
    // Ids and tenants compared exactly, as in every other table (a no-op on SQLite).
    await collateColumns(q, { knowledge_base_deletion: ['id', 'tenant_id'] }, EXACT_COLLATION);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('knowledge_base_deletion');
  }
}
