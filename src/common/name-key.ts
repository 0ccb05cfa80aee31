/**
 * What tool and agent names are compared by: lower-cased, so `Search` and `search` are the same name on
 * SQLite (which compares case-sensitively) as on MySQL (whose collation does not). Stored as `name_key`
 * under a unique index per scope.
 */
export function nameKeyOf(name: string): string {
  return name.toLowerCase();
}
