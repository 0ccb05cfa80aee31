import type { DataSource, EntityTarget, ObjectLiteral, ValueTransformer } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

type Row = Record<string, unknown>;
type Convert = (value: unknown) => unknown;

/** Column types whose conversion is compiled here (the rest goes through the driver, call by call). */
const PLAIN_TYPES = new Set(['varchar', 'text', 'longtext', 'int', 'integer', 'bigint']);

/**
 * The columns of a table that {@link HotSql} reads and writes, taken once from its TypeORM entity: the entity is
 * the one definition (the migration test keeps the migrations equal to it), so no column list is written twice.
 * Values cross with the entity's own rules (transformers, `simple-json`, booleans) as the driver's
 * `prepareHydratedValue` / `preparePersistentValue` apply them for TypeORM's repositories: compiled once per column
 * for the types the hot tables use (a per-call driver conversion cost about 2 us a column), the driver otherwise.
 */
export class HotTable<T extends ObjectLiteral> {
  readonly name: string;
  /** Every column, in entity order. */
  readonly columns: readonly ColumnMetadata[];
  /** `a, b, c`: every column, for a SELECT or an INSERT. */
  readonly columnList: string;
  /** `(?, ?, ?)`: one row of an INSERT of every column. */
  readonly rowMarks: string;
  private readonly byProperty: ReadonlyMap<string, ColumnMetadata>;
  private readonly hydrate: ReadonlyMap<ColumnMetadata, Convert>;
  private readonly persist: ReadonlyMap<ColumnMetadata, Convert>;

  constructor(dataSource: DataSource, target: EntityTarget<T>) {
    const metadata = dataSource.getMetadata(target);
    this.name = metadata.tableName;
    this.columns = metadata.columns;
    this.columnList = this.columns.map((c) => c.databaseName).join(', ');
    this.rowMarks = `(${this.columns.map(() => '?').join(', ')})`;
    this.byProperty = new Map(this.columns.map((c) => [c.propertyName, c]));
    this.hydrate = new Map(this.columns.map((c) => [c, hydrator(dataSource, c)]));
    this.persist = new Map(this.columns.map((c) => [c, persister(dataSource, c)]));
  }

  /** The database name of a property's column. */
  column(property: keyof T): string {
    const column = this.byProperty.get(String(property));
    if (!column) throw new Error(`${this.name} has no column for property ${String(property)}`);
    return column.databaseName;
  }

  /** `<alias>.a AS <prefix>a, ...`: every column of this table in a join, named apart from the other table's. */
  aliasedList(alias: string, prefix: string): string {
    return this.columns.map((c) => `${alias}.${c.databaseName} AS ${prefix}${c.databaseName}`).join(', ');
  }

  /** `a, b`: the columns of some properties, for a SELECT of only what a view shows ({@link fromRow} reads it). */
  columnsOf(properties: readonly (keyof T)[]): string {
    return properties.map((p) => this.column(p)).join(', ');
  }

  /** A raw driver row (columns named `<prefix><column>`) as the entity; columns the row lacks are left out. */
  fromRow(row: Row, prefix = ''): T {
    const out: Row = {};
    for (const c of this.columns) {
      const name = prefix + c.databaseName;
      if (name in row) out[c.propertyName] = this.hydrate.get(c)!(row[name]);
    }
    return out as T;
  }

  /** The values of an INSERT of every column (in {@link columnList} order). */
  values(entity: T): unknown[] {
    return this.columns.map((c) => this.persistent(c, entity[c.propertyName]));
  }

  /** `a = ?, b = ?` and their values: an UPDATE's SET clause for the given changes. */
  assignments(changes: Partial<T>): { sql: string; params: unknown[] } {
    const sets: string[] = [];
    const params: unknown[] = [];
    for (const [property, value] of Object.entries(changes)) {
      if (value === undefined) continue;
      const column = this.byProperty.get(property);
      if (!column) throw new Error(`${this.name} has no column for property ${property}`);
      sets.push(`${column.databaseName} = ?`);
      params.push(this.persistent(column, value));
    }
    return { sql: sets.join(', '), params };
  }

  private persistent(column: ColumnMetadata, value: unknown): unknown {
    const stored = this.persist.get(column)!(value);
    return stored === undefined ? null : stored;
  }
}

function transformers(column: ColumnMetadata): ValueTransformer[] {
  const t = column.transformer;
  return t === undefined ? [] : Array.isArray(t) ? [...t] : [t];
}

/** Raw driver value → entity value, as the driver's prepareHydratedValue does for these types. */
function hydrator(dataSource: DataSource, column: ColumnMetadata): Convert {
  const from = transformers(column).reverse();
  const transform: Convert = (v) => from.reduce((acc, t) => t.from(acc) as unknown, v);
  const type = String(column.type);
  let base: Convert | undefined;
  if (type === 'boolean') base = (v) => !!v;
  else if (type === 'simple-json') base = (v) => (typeof v === 'string' ? (JSON.parse(v) as unknown) : v);
  else if (PLAIN_TYPES.has(type)) base = (v) => v;
  if (!base) return (v) => dataSource.driver.prepareHydratedValue(v, column) as unknown;
  const convert = base;
  return (v) => (v === null || v === undefined ? transform(v) : transform(convert(v)));
}

/** Entity value → statement parameter, as the driver's preparePersistentValue does for these types. */
function persister(dataSource: DataSource, column: ColumnMetadata): Convert {
  const to = transformers(column);
  const transform: Convert = (v) => to.reduce((acc, t) => t.to(acc) as unknown, v);
  const type = String(column.type);
  let base: Convert | undefined;
  if (type === 'boolean') base = (v) => (v === true ? 1 : 0);
  else if (type === 'simple-json') base = (v) => JSON.stringify(v);
  else if (PLAIN_TYPES.has(type)) base = (v) => v;
  if (!base) return (v) => dataSource.driver.preparePersistentValue(v, column) as unknown;
  const convert = base;
  return (v) => {
    const value = transform(v);
    return value === null || value === undefined ? value : convert(value);
  };
}
