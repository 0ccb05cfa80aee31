import { Transform } from 'class-transformer';

/** A whole number as a query string writes it: an optional minus, then digits. */
const INTEGER_TEXT = /^-?\d+$/;

/**
 * The number a query parameter's text writes, when it writes a whole number in digits; null for anything else. What
 * `@Type(() => Number)` took as numbers (`0x10` as 16, `1e3` as 1000, `1.` as 1, ` 5 ` as 5, an empty value as 0) is
 * not one.
 */
export function parseQueryInteger(text: string): number | null {
  // `+ 0`: -0 reads as 0.
  return INTEGER_TEXT.test(text) ? Number(text) + 0 : null;
}

/**
 * Reads a whole-number query parameter (`page`, `pageSize`, `limit`, `offset`) written in digits; any other text
 * stays text, so the property's `@IsInt()` refuses it with a 400 naming the parameter. Put `@IsInt()` and its range
 * beside it.
 */
export const QueryInteger = () =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? (parseQueryInteger(value) ?? value) : value,
  );
