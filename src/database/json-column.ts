/** Reads a `simple-json` (TEXT) column from a raw row: empty and NULL give `fallback`. */
export function parseJsonColumn<T>(value: unknown, fallback: T): T {
  return value === null || value === undefined || value === '' ? fallback : (JSON.parse(value as string) as T);
}
