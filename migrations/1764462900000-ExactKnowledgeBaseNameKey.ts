import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * On MySQL, knowledge base names are unique per tenant exactly as on SQLite: by their `name_key` (the lower-cased
 * name), byte for byte. Under `utf8mb4_unicode_ci` MySQL also took `Café` for `Cafe`, `Straße` for `Strasse`,
 * half-width for full-width kana and any two characters outside the BMP (`𠮷野`, `𩸽野`) for the same name, and
 * refused the second base with 409 where SQLite created it. A no-op on SQLite. Rolling back fails on a tenant that by
 * then holds two such names.
 */
export class ExactKnowledgeBaseNameKey1764462900000 implements MigrationInterface {
  name = 'ExactKnowledgeBaseNameKey1764462900000';

  async up(q: QueryRunner): Promise<void> {
    await collate(q, 'utf8mb4_bin');
  }

  async down(q: QueryRunner): Promise<void> {
    await collate(q, 'utf8mb4_unicode_ci');
  }
}

async function collate(q: QueryRunner, collation: string): Promise<void> {
  if (q.connection.options.type === 'better-sqlite3') return;
  await q.query(
    `ALTER TABLE knowledge_base MODIFY name_key varchar(128) CHARACTER SET utf8mb4 COLLATE ${collation} NOT NULL`,
  );
}
