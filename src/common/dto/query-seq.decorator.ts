import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { ValidateBy } from 'class-validator';
import { parseQueryInteger } from './query-integer.decorator';

/**
 * The largest seq a session's events and messages can have: their `seq` columns are a signed 32-bit INT (MySQL and
 * MariaDB). An `after` or a Last-Event-ID above it names an entry that cannot exist.
 */
export const SEQ_MAX = 2_147_483_647;

/** What a seq a client gives must be, as its 400 says. */
export const SEQ_RANGE = `a whole number from 0 to ${SEQ_MAX}`;

/** A seq written in digits, 0 to SEQ_MAX; null for anything else (a sign, a fraction, an exponent, hex, a space). */
export function parseSeq(text: string): number | null {
  const seq = parseQueryInteger(text);
  return seq !== null && seq >= 0 && seq <= SEQ_MAX ? seq : null;
}

/**
 * A seq query parameter (`after`): digits, 0 to SEQ_MAX. Any other text (`-1`, `1.5`, `1e308`, an empty value) stays
 * as it is and fails with a 400 naming the parameter and the range, rather than being read as a number no entry has.
 */
export const IsQuerySeq = () =>
  applyDecorators(
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? (parseSeq(value) ?? value) : value)),
    ValidateBy({
      name: 'isQuerySeq',
      validator: {
        validate: (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= SEQ_MAX,
        defaultMessage: (args) =>
          `${args?.property ?? 'the value'} must be ${SEQ_RANGE}: the seq of the last entry read (nextAfter of the last page), 0 for the start`,
      },
    }),
  );
