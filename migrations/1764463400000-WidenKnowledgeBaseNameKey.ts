import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { col } from './migration-columns';

const NAME_LENGTH = 128;

/**
 * A knowledge base's `name_key` (its name lower-cased) holds twice the name's length: lower-casing `İ` gives two
 * characters (`i` and a combining dot), so a name of 128 characters with some could not be stored on MySQL (500, data
 * too long for name_key) where SQLite, which does not enforce the length, created the base. No other character grows.
 * Rolling back fails on a base whose key is by then longer than 128 characters.
 */
export class WidenKnowledgeBaseNameKey1764463400000 implements MigrationInterface {
  name = 'WidenKnowledgeBaseNameKey1764463400000';

  async up(q: QueryRunner): Promise<void> {
    await resize(q, 2 * NAME_LENGTH);
  }

  async down(q: QueryRunner): Promise<void> {
    await resize(q, NAME_LENGTH);
  }
}

async function resize(q: QueryRunner, length: number): Promise<void> {
  if (q.connection.options.type === 'better-sqlite3') {
    await q.changeColumn('knowledge_base', 'name_key', new TableColumn(col.varchar('name_key', length)));
    return;
  }
  await q.query(
    `ALTER TABLE knowledge_base MODIFY name_key varchar(${length}) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL`,
  );
}
