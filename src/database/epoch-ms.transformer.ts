import type { ValueTransformer } from 'typeorm';

/** Times are stored as epoch milliseconds in BIGINT columns (portable, millisecond precise on both dialects). */
export const epochMs: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null || value === undefined ? value : Number(value)),
};

export function toIso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}
