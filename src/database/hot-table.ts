import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

type Row = Record<string, unknown>;

/**
 * The columns of a table that {@link HotSql} reads and writes, taken once from its TypeORM entity: the entity is
 * the one definition (the migration test keeps the migrations equal to it), so no column list is written twice.
 * Values cross with the entity's own rules (transformers, `simple-json`, booleans) through the driver's
 * `preparePersistentValue` / `prepareHydratedValue`, exactly as TypeORM's repositories convert them.
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

  constructor(
    private readonly dataSource: DataSource,
    target: EntityTarget<T>,
  ) {
    const metadata = dataSource.getMetadata(target);
    this.name = metadata.tableName;
    this.columns = metadata.columns;
    this.columnList = this.columns.map((c) => c.databaseName).join(', ');
    this.rowMarks = `(${this.columns.map(() => '?').join(', ')})`;
    this.byProperty = new Map(this.columns.map((c) => [c.propertyName, c]));
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

  /** A raw driver row (columns named `<prefix><column>`) as the entity. */
  fromRow(row: Row, prefix = ''): T {
    const out: Row = {};
    for (const c of this.columns)
      out[c.propertyName] = this.dataSource.driver.prepareHydratedValue(row[prefix + c.databaseName], c);
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
    const stored: unknown = this.dataSource.driver.preparePersistentValue(value, column);
    return stored === undefined ? null : stored;
  }
}
