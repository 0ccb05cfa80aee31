import { createHash } from 'node:crypto';
import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { col } from './migration-columns';

/**
 * Model provider names are unique per scope in the database itself, as agents' and knowledge bases' are: `scope_key`
 * (the tenant, or `*` platform-wide, never NULL) and `name_key` (the lower-cased name) under a unique index, compared
 * byte for byte on MySQL (`utf8mb4_bin`) as on SQLite. Before, the service only looked for the name and then inserted,
 * so two concurrent creates or renames could both take it. Of names already stored twice in a scope (ignoring case),
 * the oldest provider keeps its name and each later one gets `_` and 8 hex characters derived from its id (agents
 * name their provider by id, so nothing that uses a provider changes).
 */
export class AddModelProviderNameKey1764463100000 implements MigrationInterface {
  name = 'AddModelProviderNameKey1764463100000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumns(TABLE, [
      new TableColumn(col.varchar('scope_key', 64, true)),
      new TableColumn(col.varchar('name_key', 128, true)),
    ]);
    const rows = (await q.query(`SELECT id, tenant_id, name FROM ${TABLE} ORDER BY created_at, id`)) as Array<{
      id: string;
      tenant_id: string | null;
      name: string;
    }>;
    const taken = new Set<string>();
    for (const row of rows) {
      const scope = row.tenant_id ?? PLATFORM_SCOPE;
      let name = row.name;
      for (let n = 0; taken.has(`${scope}\n${name.toLowerCase()}`); n++) {
        const suffix = createHash('sha256').update(`${row.id}#${n}`).digest('hex').slice(0, 8);
        name = `${row.name.slice(0, NAME_LENGTH - 9)}_${suffix}`;
      }
      taken.add(`${scope}\n${name.toLowerCase()}`);
      await q.query(`UPDATE ${TABLE} SET scope_key = ?, name = ?, name_key = ? WHERE id = ?`, [
        scope,
        name,
        name.toLowerCase(),
        row.id,
      ]);
    }
    if (isSqlite(q)) {
      await q.changeColumn(TABLE, 'scope_key', new TableColumn(col.varchar('scope_key', 64)));
      await q.changeColumn(TABLE, 'name_key', new TableColumn(col.varchar('name_key', NAME_LENGTH)));
    } else {
      await q.query(
        `ALTER TABLE ${TABLE} MODIFY scope_key varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
          MODIFY name_key varchar(${NAME_LENGTH}) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL`,
      );
    }
    await q.createIndex(TABLE, new TableIndex({ name: INDEX, columnNames: ['scope_key', 'name_key'], isUnique: true }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex(TABLE, INDEX);
    await q.dropColumn(TABLE, 'name_key');
    await q.dropColumn(TABLE, 'scope_key');
  }
}

const TABLE = 'model_provider';
const INDEX = 'uq_model_provider_scope_name_key';
const NAME_LENGTH = 128;
const PLATFORM_SCOPE = '*';

const isSqlite = (q: QueryRunner) => q.connection.options.type === 'better-sqlite3';
