import { MigrationInterface, QueryRunner, TableIndex, TableUnique } from 'typeorm';

/**
 * On MySQL, agent names are unique per tenant exactly as on SQLite: by their `name_key` (the lower-cased name), byte
 * for byte. Under `utf8mb4_unicode_ci` MySQL also took `Café` for `Cafe`, `Straße` for `Strasse` or two characters
 * outside the BMP for the same name, and refused the second agent with 409 `AGENT_NAME_TAKEN` where SQLite created it
 * (as {@link ExactKnowledgeBaseNameKey1764462900000} did for knowledge bases). The older unique constraint on
 * (`tenant_id`, `name`) goes on both databases: `name_key`'s makes it redundant, and on MySQL it compared names under
 * the same collation. Rolling back fails on a tenant that by then holds two such names.
 */
export class ExactAgentNameKey1764463000000 implements MigrationInterface {
  name = 'ExactAgentNameKey1764463000000';

  async up(q: QueryRunner): Promise<void> {
    // MySQL made the constraint a unique index; SQLite keeps it in the table's definition.
    if (isSqlite(q)) await q.dropUniqueConstraint('agent', NAME_UNIQUE);
    else await q.dropIndex('agent', NAME_UNIQUE);
    await collate(q, 'utf8mb4_bin');
  }

  async down(q: QueryRunner): Promise<void> {
    await collate(q, 'utf8mb4_unicode_ci');
    const columnNames = ['tenant_id', 'name'];
    if (isSqlite(q)) await q.createUniqueConstraint('agent', new TableUnique({ name: NAME_UNIQUE, columnNames }));
    else await q.createIndex('agent', new TableIndex({ name: NAME_UNIQUE, columnNames, isUnique: true }));
  }
}

const NAME_UNIQUE = 'uq_agent_tenant_name';

const isSqlite = (q: QueryRunner) => q.connection.options.type === 'better-sqlite3';

async function collate(q: QueryRunner, collation: string): Promise<void> {
  if (isSqlite(q)) return;
  await q.query(`ALTER TABLE agent MODIFY name_key varchar(128) CHARACTER SET utf8mb4 COLLATE ${collation} NOT NULL`);
}
