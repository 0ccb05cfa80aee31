import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { col } from './migration-columns';
import { addColumnIfMissing, dropColumnIfPresent } from './migration-steps';

/**
 * The reasoning a model in a thinking mode answered beside its tool calls (`reasoning_content`): DeepSeek's (on by
 * default) refuses every later request that replays those calls without it, so a run failed at its second round.
 * LONGTEXT on MySQL (a reasoning may pass TEXT's 64 KB), TEXT on SQLite.
 */
export class AddAgentMessageReasoning1764464800000 implements MigrationInterface {
  name = 'AddAgentMessageReasoning1764464800000';

  async up(q: QueryRunner): Promise<void> {
    const type = q.connection.options.type === 'better-sqlite3' ? 'text' : 'longtext';
    await addColumnIfMissing(q, 'agent_message', new TableColumn({ ...col.text('reasoning', true), type }));
  }

  async down(q: QueryRunner): Promise<void> {
    await dropColumnIfPresent(q, 'agent_message', 'reasoning');
  }
}
