import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { col } from './migration-columns';

/**
 * Sub-agent tasks: a child session of the named agent, run by the agent loop, started by a parent session's
 * tool call (SUB_AGENT_CALL, SUBMIT_SUBAGENT_TASK). One task per (parent session, tool call).
 */
export class CreateAgentTasks1764462410000 implements MigrationInterface {
  name = 'CreateAgentTasks1764462410000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'agent_task',
        columns: [
          col.id(),
          col.varchar('tenant_id', 64),
          col.varchar('parent_session_id', 36),
          col.varchar('parent_tool_call_id', 128),
          col.varchar('parent_agent_id', 36),
          col.varchar('agent_id', 36),
          col.varchar('agent_name', 128),
          col.varchar('child_session_id', 36),
          col.varchar('child_run_id', 36),
          col.int('depth'),
          col.bigint('created_at'),
          col.bigint('reminded_at', true),
        ],
        indices: [
          new TableIndex({
            name: 'uq_agent_task_parent_call',
            columnNames: ['parent_session_id', 'parent_tool_call_id'],
            isUnique: true,
          }),
          new TableIndex({ name: 'idx_agent_task_child', columnNames: ['child_session_id'] }),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('agent_task');
  }
}
