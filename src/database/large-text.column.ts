import type { DataSource } from 'typeorm';

const LARGE_TEXT_COLUMNS = new WeakMap<object, Set<string>>();

/**
 * Marks a `text` column that holds data of request size (a call's full arguments, an interrupted batch):
 * LONGTEXT on MySQL and MariaDB, where TEXT holds only 64 KB, and TEXT on SQLite, which has no such limit.
 * Migrations create it so (1764461700000-WidenRequestSizedColumns); {@link applyLargeTextColumns} makes the
 * entity metadata say the same on MySQL, so "no schema difference" holds on both dialects. Use it beside
 * `@Column({ type: 'text', ... })` (with a transformer for JSON: `simple-json` cannot change its type).
 */
export function LargeText(): PropertyDecorator {
  return (target, property) => {
    const columns = LARGE_TEXT_COLUMNS.get(target.constructor) ?? new Set<string>();
    columns.add(String(property));
    LARGE_TEXT_COLUMNS.set(target.constructor, columns);
  };
}

/** On MySQL and MariaDB, the {@link LargeText} columns of the built entity metadata become LONGTEXT. */
export function applyLargeTextColumns(dataSource: DataSource): void {
  if (dataSource.options.type !== 'mysql' && dataSource.options.type !== 'mariadb') return;
  for (const entity of dataSource.entityMetadatas) {
    const marked = typeof entity.target === 'function' ? LARGE_TEXT_COLUMNS.get(entity.target) : undefined;
    if (!marked) continue;
    for (const column of entity.columns) if (marked.has(column.propertyName)) column.type = 'longtext';
  }
}
