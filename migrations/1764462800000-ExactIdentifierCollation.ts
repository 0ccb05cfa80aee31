import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The columns that identify a tenant, a tool call, a client's message, a user or a secret, by table. Compared
 * exactly: `acme` and `ACME` are two tenants, `call_Ab` and `call_ab` two tool calls. A table created by a later
 * migration cannot be added here (this one runs before it exists): that migration makes its columns exact itself,
 * and test/hostile/tenant-id-case.e2e-spec.ts, which checks every column of these names on MySQL, lists it.
 */
export const EXACT_IDENTIFIER_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  agent: ['tenant_id'],
  agent_message: ['tenant_id', 'tool_call_id'],
  agent_run: ['tenant_id', 'client_message_id'],
  agent_session: ['tenant_id', 'user_id'],
  agent_task: ['tenant_id', 'parent_tool_call_id'],
  ai_tool: ['tenant_id', 'scope_key'],
  api_key: ['tenant_id'],
  artifact: ['tenant_id'],
  hitl_request: ['tenant_id', 'tool_call_id', 'client_message_id'],
  knowledge_base: ['tenant_id'],
  knowledge_document: ['tenant_id'],
  mcp_service: ['tenant_id', 'scope_key'],
  model_provider: ['tenant_id'],
  resume_record: ['client_message_id'],
  session_event: ['tenant_id'],
  skill: ['tenant_id', 'scope_key'],
  tenant_capability: ['tenant_id'],
  tenant_config_version: ['tenant_id'],
  tenant_secret: ['tenant_id', 'name'],
  tool_call_journal: ['tenant_id', 'tool_call_id'],
  tool_call_log: ['tenant_id', 'user_id', 'tool_call_id'],
  tool_result_chunk: ['tool_call_id'],
};

/** MySQL's exact (byte-wise) collation: what SQLite's `=` does. */
export const EXACT_COLLATION = 'utf8mb4_bin';
/** The collation of every text column before this migration (the connection's). */
export const CASE_INSENSITIVE_COLLATION = 'utf8mb4_unicode_ci';

/**
 * On MySQL, identifiers compared exactly, as on SQLite. The tables' collation, `utf8mb4_unicode_ci`, made
 * `WHERE tenant_id = 'ACME'` match the rows of tenant `acme`: an admin of `ACME` listed and bound `acme`'s knowledge
 * bases, read its secret names and overwrote its secrets. Names stay case-insensitive where meant (their `name_key`
 * columns). Each table is rebuilt once (one ALTER per table). A no-op on SQLite. Rolling back fails on a table that
 * by then holds two identifiers that differ only in letter case.
 */
export class ExactIdentifierCollation1764462800000 implements MigrationInterface {
  name = 'ExactIdentifierCollation1764462800000';

  async up(q: QueryRunner): Promise<void> {
    await collateColumns(q, EXACT_IDENTIFIER_COLUMNS, EXACT_COLLATION);
  }

  async down(q: QueryRunner): Promise<void> {
    await collateColumns(q, EXACT_IDENTIFIER_COLUMNS, CASE_INSENSITIVE_COLLATION);
  }
}

/**
 * On MySQL, gives `columns` (by table) `collation`, each table in one ALTER, keeping each column's type and
 * nullability (none of them has a default) and a FULLTEXT index's stopword setting. A no-op on SQLite, whose `=` is
 * exact.
 */
export async function collateColumns(
  q: QueryRunner,
  columnsByTable: Readonly<Record<string, readonly string[]>>,
  collation: string,
): Promise<void> {
  if (q.connection.options.type === 'better-sqlite3') return;
  // An ALTER rebuilds the table, and its FULLTEXT index (knowledge_chunk) with this session's stopword setting: keep
  // the one CreateKnowledgeBases made it with (InnoDB's stopwords would drop tokens SQLite keeps).
  await q.query('SET SESSION innodb_ft_enable_stopword = OFF');
  for (const [table, columns] of Object.entries(columnsByTable)) {
    const defined = (await q.query(
      `SELECT COLUMN_NAME AS name, COLUMN_TYPE AS type, IS_NULLABLE AS nullable FROM information_schema.COLUMNS
        WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME IN (${columns.map(() => '?').join(', ')})`,
      [table, ...columns],
    )) as Array<{ name: string; type: string; nullable: string }>;
    if (defined.length !== columns.length)
      throw new Error(
        `${table}: expected columns ${columns.join(', ')}, found ${defined.map((c) => c.name).join(', ')}`,
      );
    const changes = defined.map(
      (c) =>
        `MODIFY \`${c.name}\` ${c.type} CHARACTER SET utf8mb4 COLLATE ${collation} ${c.nullable === 'YES' ? 'NULL' : 'NOT NULL'}`,
    );
    await q.query(`ALTER TABLE \`${table}\` ${changes.join(', ')}`);
  }
}
