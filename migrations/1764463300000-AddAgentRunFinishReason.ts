import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { col } from './migration-columns';

/**
 * Why a run's final model answer ended when it did not end as the model meant it (`length`: cut at the token limit;
 * `content_filter`; a provider's own reason): before, a cut answer completed its run with nothing to show it was cut.
 */
export class AddAgentRunFinishReason1764463300000 implements MigrationInterface {
  name = 'AddAgentRunFinishReason1764463300000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('agent_run', new TableColumn(col.varchar('finish_reason', 64, true)));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('agent_run', 'finish_reason');
  }
}
