import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { col } from './migration-columns';
import { addColumnIfMissing, dropColumnIfPresent } from './migration-steps';

/**
 * The reasoning a model in a thinking mode answered beside its tool calls (`reasoning_content`): DeepSeek's (on by
 * default) refuses every later request that replays those calls without it, so a run failed at its second round.
 * LONGTEXT on MySQL (a reasoning may pass TEXT's 64 KB), TEXT on SQLite, where it is added in place: TypeORM's
 * addColumn would copy the whole table (every conversation) to add it.
 */
export class AddAgentMessageReasoning1764464800000 implements MigrationInterface {
  name = 'AddAgentMessageReasoning1764464800000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'better-sqlite3') {
      const column = new TableColumn({ ...col.text('reasoning', true), type: 'longtext' });
      return addColumnIfMissing(q, 'agent_message', column);
    }
    if (!(await q.hasColumn('agent_message', 'reasoning')))
      await q.query('ALTER TABLE "agent_message" ADD COLUMN "reasoning" text');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropColumnIfPresent(q, 'agent_message', 'reasoning');
  }
}
