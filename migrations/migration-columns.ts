import type { TableColumnOptions } from 'typeorm';

/**
 * Column builders for migrations, in the types that are valid on MySQL 8, MariaDB 10.11 and SQLite and that
 * TypeORM maps back to the entities without a schema difference. Keep them stable: migrations are history.
 */
export const col = {
  id: (name = 'id'): TableColumnOptions => ({ name, type: 'varchar', length: '36', isPrimary: true }),
  varchar: (name: string, length: number, nullable = false): TableColumnOptions => ({
    name,
    type: 'varchar',
    length: String(length),
    isNullable: nullable,
  }),
  text: (name: string, nullable = false): TableColumnOptions => ({ name, type: 'text', isNullable: nullable }),
  int: (name: string, nullable = false): TableColumnOptions => ({ name, type: 'integer', isNullable: nullable }),
  bigint: (name: string, nullable = false): TableColumnOptions => ({ name, type: 'bigint', isNullable: nullable }),
  bool: (name: string): TableColumnOptions => ({ name, type: 'boolean', isNullable: false }),
};
