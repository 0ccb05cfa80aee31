import { MigrationInterface, QueryRunner } from 'typeorm';
import { CASE_INSENSITIVE_COLLATION, collateColumns, EXACT_COLLATION } from './1764462800000-ExactIdentifierCollation';

/**
 * The columns that hold an entity's id (a UUID the gateway made) or a reference to one, by table, and a Nacos
 * namespace id. A table created by a later migration makes such columns exact itself:
 * test/hostile/tenant-id-case.e2e-spec.ts checks every `id` and `*_id` column on MySQL.
 */
export const EXACT_ENTITY_ID_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  agent: ['id', 'model_provider_id'],
  agent_message: ['id', 'run_id', 'session_id'],
  agent_run: ['id', 'agent_id', 'session_id'],
  agent_session: ['id', 'agent_id'],
  agent_task: ['id', 'agent_id', 'child_run_id', 'child_session_id', 'parent_agent_id', 'parent_session_id'],
  agent_tool_binding: ['agent_id', 'tool_id'],
  ai_tool: ['id', 'mcp_service_id'],
  api_key: ['id'],
  artifact: ['id', 'session_id'],
  hitl_request: ['id', 'agent_id', 'session_id'],
  knowledge_base: ['id'],
  knowledge_chunk: ['document_id', 'knowledge_base_id'],
  knowledge_document: ['id', 'knowledge_base_id'],
  knowledge_term: ['knowledge_base_id'],
  mcp_service: ['id', 'namespace_id'],
  model_provider: ['id'],
  resume_record: ['session_id'],
  session_event: ['session_id'],
  session_event_outbox: ['id', 'session_id'],
  skill: ['id'],
  skill_file: ['skill_id'],
  skill_release: ['skill_id'],
  tool_call_journal: ['session_id', 'tool_id'],
  tool_call_log: ['id', 'agent_id', 'session_id', 'tool_id'],
  tool_result_chunk: ['session_id'],
};

/**
 * On MySQL, entity ids compared exactly, as on SQLite (ExactIdentifierCollation did tenants, tool calls, users and
 * client messages). With the tables' `utf8mb4_unicode_ci`, an id in other letter case found its row on MySQL only
 * (404 on SQLite): a DELETE of a knowledge base by it left agents bound to the deleted base, and what a process keys
 * by the id as given saw two sessions where the database saw one. Every column of the list at once, so joins compare
 * ids of one collation. Each table is rebuilt once (one ALTER per table). A no-op on SQLite.
 */
export class ExactEntityIdCollation1764464600000 implements MigrationInterface {
  name = 'ExactEntityIdCollation1764464600000';

  async up(q: QueryRunner): Promise<void> {
    await collateColumns(q, EXACT_ENTITY_ID_COLUMNS, EXACT_COLLATION);
  }

  async down(q: QueryRunner): Promise<void> {
    await collateColumns(q, EXACT_ENTITY_ID_COLUMNS, CASE_INSENSITIVE_COLLATION);
  }
}
