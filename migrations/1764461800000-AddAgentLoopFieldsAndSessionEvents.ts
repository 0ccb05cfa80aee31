import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';
import { col } from './migration-columns';

/**
 * What the v2 features share: the agent's knowledge bases, sub-agents, model provider and system prompt; the
 * session's task (`{description, skill?}`); and the durable, per-session ordered session events
 * (`GET /sessions/{id}/events`). Existing agents get no knowledge base and no sub-agent (NULL reads as none).
 */
export class AddAgentLoopFieldsAndSessionEvents1764461800000 implements MigrationInterface {
  name = 'AddAgentLoopFieldsAndSessionEvents1764461800000';

  async up(q: QueryRunner): Promise<void> {
    const mysql = q.connection.options.type !== 'better-sqlite3';
    await q.addColumns('agent', [
      new TableColumn(col.text('knowledge_base_ids', true)),
      new TableColumn(col.text('sub_agent_ids', true)),
      new TableColumn(col.varchar('model_provider_id', 36, true)),
      new TableColumn({ ...col.text('system_prompt', true), type: mysql ? 'longtext' : 'text' }),
    ]);
    await q.addColumn('agent_session', new TableColumn(col.text('task', true)));
    await q.createTable(
      new Table({
        name: 'session_event',
        columns: [
          { ...col.varchar('session_id', 36), isPrimary: true },
          { ...col.int('seq'), isPrimary: true },
          col.varchar('tenant_id', 64),
          col.varchar('type', 32),
          col.bigint('at'),
          col.text('data'),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('session_event');
    await q.dropColumn('agent_session', 'task');
    for (const c of ['system_prompt', 'model_provider_id', 'sub_agent_ids', 'knowledge_base_ids'])
      await q.dropColumn('agent', c);
  }
}
