import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { col } from './migration-columns';

const NAME_LENGTH = 128;
const TABLES = ['agent', 'model_provider'];

/**
 * An agent's and a model provider's `name_key` (the name lower-cased) hold twice the name's length, as
 * {@link WidenKnowledgeBaseNameKey1764463400000} did for knowledge bases: lower-casing `İ` gives two characters (`i` and
 * a combining dot), so a name of 128 characters with some could not be stored on MySQL (500, data too long for
 * name_key) where SQLite, which does not enforce the length, took it. Tool, MCP service and skill names are ASCII.
 * Rolling back fails on a row whose key is by then longer than 128 characters.
 */
export class WidenAgentAndModelProviderNameKeys1764463500000 implements MigrationInterface {
  name = 'WidenAgentAndModelProviderNameKeys1764463500000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of TABLES) await resize(q, table, 2 * NAME_LENGTH);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of TABLES) await resize(q, table, NAME_LENGTH);
  }
}

async function resize(q: QueryRunner, table: string, length: number): Promise<void> {
  if (q.connection.options.type === 'better-sqlite3') {
    await q.changeColumn(table, 'name_key', new TableColumn(col.varchar('name_key', length)));
    return;
  }
  await q.query(
    `ALTER TABLE ${table} MODIFY name_key varchar(${length}) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL`,
  );
}
