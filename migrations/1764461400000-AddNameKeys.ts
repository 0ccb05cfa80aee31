import { createHash } from 'node:crypto';
import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { col } from './migration-columns';

/** A table whose names become unique per scope case-insensitively, through a stored lower-cased `name_key`. */
interface KeyedTable {
  table: string;
  scope: string;
  length: number;
  index: string;
  /** Whether names must start with a letter or `_` (tool names, as Gemini requires). */
  letterFirst: boolean;
}

const TABLES: KeyedTable[] = [
  { table: 'ai_tool', scope: 'scope_key', length: 64, index: 'uq_ai_tool_scope_name_key', letterFirst: true },
  { table: 'agent', scope: 'tenant_id', length: 128, index: 'uq_agent_tenant_name_key', letterFirst: false },
];

/**
 * Tool and agent names are unique per scope case-insensitively on every database (SQLite compares
 * `Search` and `search` as different, MySQL's collation as equal): `name_key` holds the lower-cased name
 * under a unique index per scope (`scope_key`, never NULL: '*' is platform-wide; agents' `tenant_id` is
 * never NULL either). Existing rows are migrated: a tool name that starts with a digit or `-` gets a `_` in
 * front; of names that then collide (only possible on SQLite), the oldest keeps its name and the others get
 * `_` and 8 hex characters derived from their id.
 */
export class AddNameKeys1764461400000 implements MigrationInterface {
  name = 'AddNameKeys1764461400000';

  async up(q: QueryRunner): Promise<void> {
    for (const t of TABLES) {
      await q.addColumn(t.table, new TableColumn(col.varchar('name_key', t.length, true)));
      await q.query(`UPDATE ${t.table} SET name_key = LOWER(name)`);
      const rows = (await q.query(
        `SELECT id, ${t.scope} AS scope, name FROM ${t.table} ORDER BY created_at, id`,
      )) as Array<{ id: string; scope: string; name: string }>;
      // LOWER() of each database and the gateway's toLowerCase() may differ beyond ASCII (agent names): the gateway's counts.
      // eslint-disable-next-line no-control-regex -- any character beyond ASCII
      for (const r of rows.filter((row) => /[^\x00-\x7f]/.test(row.name))) {
        await q.query(`UPDATE ${t.table} SET name_key = ? WHERE id = ?`, [r.name.toLowerCase(), r.id]);
      }
      const renames = renamesOf(rows, t);
      // Two passes: a new name may be the old name of a row renamed later ('1a' -> '_1a' while '_1a' -> '_1a_<hash>').
      for (const r of renames) await q.query(`UPDATE ${t.table} SET name = ? WHERE id = ?`, [`~${r.id}`, r.id]);
      for (const r of renames)
        await q.query(`UPDATE ${t.table} SET name = ?, name_key = ? WHERE id = ?`, [
          r.name,
          r.name.toLowerCase(),
          r.id,
        ]);
      await q.changeColumn(t.table, 'name_key', new TableColumn(col.varchar('name_key', t.length)));
      await q.createIndex(
        t.table,
        new TableIndex({ name: t.index, columnNames: [t.scope, 'name_key'], isUnique: true }),
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [...TABLES].reverse()) {
      await q.dropIndex(t.table, t.index);
      await q.dropColumn(t.table, 'name_key');
    }
  }
}

/** The rows (oldest first) whose name must change so every (scope, lower-cased name) is unique and valid. */
function renamesOf(
  rows: Array<{ id: string; scope: string; name: string }>,
  t: KeyedTable,
): Array<{ id: string; name: string }> {
  const taken = new Set<string>();
  const renames: Array<{ id: string; name: string }> = [];
  for (const row of rows) {
    const valid = t.letterFirst && !/^[a-zA-Z_]/.test(row.name) ? `_${row.name}`.slice(0, t.length) : row.name;
    let name = valid;
    for (let n = 0; taken.has(`${row.scope}\n${name.toLowerCase()}`); n++) {
      const suffix = createHash('sha256').update(`${row.id}#${n}`).digest('hex').slice(0, 8);
      name = `${valid.slice(0, t.length - 9)}_${suffix}`;
    }
    taken.add(`${row.scope}\n${name.toLowerCase()}`);
    if (name !== row.name) renames.push({ id: row.id, name });
  }
  return renames;
}
