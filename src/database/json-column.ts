import type { ValueTransformer } from 'typeorm';

/** Reads a `simple-json` (TEXT) column from a raw row: empty and NULL give `fallback`. */
export function parseJsonColumn<T>(value: unknown, fallback: T): T {
  return value === null || value === undefined || value === '' ? fallback : (JSON.parse(String(value)) as T);
}

/** A JSON value in a `text` column (as `simple-json` stores it), for columns whose type must stay `text`. */
export const jsonText: ValueTransformer = {
  to: (value: unknown) => (value === null || value === undefined ? value : JSON.stringify(value)),
  from: (value: unknown) => parseJsonColumn(value, null),
};
