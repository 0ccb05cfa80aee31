import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';
import { createIndexIfMissing, dropIndexIfPresent } from './migration-steps';

const BEFORE = new TableIndex({ name: 'idx_hitl_request_session', columnNames: ['session_id'] });
const AFTER = new TableIndex({ name: 'idx_hitl_request_session', columnNames: ['session_id', 'status'] });

/**
 * A resume looks up its session's DECIDED request (under its clientMessageId, or for its tool call). With the session
 * index on session_id alone, SQLite took idx_hitl_request_status_created (status=?) instead, through every DECIDED
 * request kept until retention, on each resume and each abandoned-decision round. With the status in the session
 * index, that lookup reads the session's own requests; what read the index by session alone still can.
 */
export class AddStatusToHitlSessionIndex1764465400000 implements MigrationInterface {
  name = 'AddStatusToHitlSessionIndex1764465400000';

  async up(q: QueryRunner): Promise<void> {
    await dropIndexIfPresent(q, 'hitl_request', BEFORE.name!);
    await createIndexIfMissing(q, 'hitl_request', AFTER);
  }

  async down(q: QueryRunner): Promise<void> {
    await dropIndexIfPresent(q, 'hitl_request', AFTER.name!);
    await createIndexIfMissing(q, 'hitl_request', BEFORE);
  }
}
