/** Helpers shared by the model-format specs (not a spec itself). */

/** Freezes a value and everything under it, so a mutation by the code under test throws. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** The Gemini validator the checklist uses: the specs hold the converter to the same rules. */
export { geminiSchemaViolations as geminiViolations } from './gemini-spec.validator';

/** How many schema positions the result holds (to check that inlining stays bounded). */
export function countSchemaNodes(schema: Record<string, unknown>): number {
  let count = 1;
  for (const child of Object.values((schema.properties ?? {}) as Record<string, Record<string, unknown>>))
    count += countSchemaNodes(child);
  if (schema.items) count += countSchemaNodes(schema.items as Record<string, unknown>);
  for (const member of (schema.anyOf ?? []) as Record<string, unknown>[]) count += countSchemaNodes(member);
  return count;
}
