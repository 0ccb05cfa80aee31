import type { AiToolEntity } from '@app/modules/tool-registry/ai-tool.entity';
import type { LocalToolDefinition } from './feign-tool.types';
import { canonicalJson } from '@app/common/canonical-json';
import { definitionOfRow } from './feign-tool.checksum';

export const FEIGN_TOOL_DRIFTS = ['IN_SYNC', 'DB_OVERRIDDEN', 'ORPHANED'] as const;
/** How a scanned tool's row compares with its decorator. */
export type FeignToolDrift = (typeof FEIGN_TOOL_DRIFTS)[number];

/** Fields whose row value differs from what the decorator declares (`status` when not ACTIVE). */
export function overriddenFields(definition: LocalToolDefinition, row: AiToolEntity): string[] {
  const fields: string[] = [];
  if (!row.enabled) fields.push('enabled');
  if (row.status !== 'ACTIVE') fields.push('status');
  const current = definitionOfRow(row);
  for (const key of Object.keys(definition) as Array<keyof LocalToolDefinition>) {
    if (canonicalJson(definition[key]) !== canonicalJson(current[key])) fields.push(key);
  }
  return fields;
}
