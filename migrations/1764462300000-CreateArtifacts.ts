import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { col } from './migration-columns';

/** Artifacts (PUBLISH_FILE): immutable copies of workspace files, stored under WORKSPACE_ROOT/artifacts. */
export class CreateArtifacts1764462300000 implements MigrationInterface {
  name = 'CreateArtifacts1764462300000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'artifact',
        columns: [
          col.id(),
          col.varchar('tenant_id', 64),
          col.varchar('session_id', 36),
          col.varchar('name', 255),
          col.varchar('source_path', 1024),
          col.varchar('title', 255, true),
          col.bigint('size'),
          col.varchar('sha256', 64),
          col.bigint('created_at'),
        ],
      }),
    );
    await q.createIndex(
      'artifact',
      new TableIndex({ name: 'idx_artifact_tenant_session', columnNames: ['tenant_id', 'session_id'] }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('artifact');
  }
}
