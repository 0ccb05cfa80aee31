import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

const INDEX = new TableIndex({ name: 'idx_artifact_created', columnNames: ['created_at'] });

/** ARTIFACTS_RETENTION_DAYS: the retention job reads the oldest artifacts of every tenant first, through this index. */
export class AddArtifactRetentionIndex1764462700000 implements MigrationInterface {
  name = 'AddArtifactRetentionIndex1764462700000';

  async up(q: QueryRunner): Promise<void> {
    await q.createIndex('artifact', INDEX);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('artifact', INDEX.name!);
  }
}
