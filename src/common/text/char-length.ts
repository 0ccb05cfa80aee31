import { buildMessage, ValidateBy, type ValidationOptions } from 'class-validator';

/** The number of characters of `text` as MySQL counts them for a varchar (code points). */
export function charCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * class-validator: a string of `min` to `max` characters, counted as the database counts them (code points). It
 * replaces `@Length` and `@MaxLength`, which do not count a variation selector after a character (U+FE0E, U+FE0F:
 * ❤️ is one character to them, two to MySQL), so a value they took could be too long for its column (500 on MySQL,
 * stored longer than the limit on SQLite). Same messages as `@Length`.
 */
export function CharLength(min: number, max: number, options: ValidationOptions = {}): PropertyDecorator {
  const fits = (v: unknown) => typeof v === 'string' && charCount(v) >= min && charCount(v) <= max;
  const problem = (value: unknown): string => {
    const wrong: unknown = (Array.isArray(value) ? (value as unknown[]) : [value]).find((v) => !fits(v));
    if (typeof wrong !== 'string') return `longer than or equal to ${min} and shorter than or equal to ${max}`;
    return charCount(wrong) < min ? `longer than or equal to ${min}` : `shorter than or equal to ${max}`;
  };
  return ValidateBy(
    {
      name: 'charLength',
      constraints: [min, max],
      validator: {
        validate: fits,
        defaultMessage: buildMessage(
          (each, args) => `${each}$property must be ${problem(args?.value)} characters`,
          options,
        ),
      },
    },
    options,
  );
}
