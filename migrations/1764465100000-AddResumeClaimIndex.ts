import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';
import { createIndexIfMissing, dropIndexIfPresent } from './migration-steps';

/**
 * The abandoned-decision recovery (every interval, every instance) looks for resume claims still IN_PROGRESS and
 * stale. Without an index on the claim state it started from the other tables: on SQLite every DECIDED HITL request
 * kept (until retention), on MySQL every INTERRUPTED session. On SQLite the index is partial (only claims in
 * progress, a handful), so storing a resume's response takes its row out of it; MySQL has no partial indexes and
 * keeps the full one.
 */
export class AddResumeClaimIndex1764465100000 implements MigrationInterface {
  name = 'AddResumeClaimIndex1764465100000';

  async up(q: QueryRunner): Promise<void> {
    const where = q.connection.options.type === 'better-sqlite3' ? "state = 'IN_PROGRESS'" : undefined;
    await createIndexIfMissing(
      q,
      'resume_record',
      new TableIndex({ name: 'idx_resume_record_claim', columnNames: ['state', 'created_at'], where }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await dropIndexIfPresent(q, 'resume_record', 'idx_resume_record_claim');
  }
}
