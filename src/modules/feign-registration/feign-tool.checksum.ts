import { createHash } from 'node:crypto';
import type { AiToolEntity } from '@app/modules/tool-registry/ai-tool.entity';
import type { LocalToolDefinition } from './feign-tool.types';
import type { LocalToolSource } from './feign-tool.options';

/**
 * JSON with object keys sorted at every depth and undefined members dropped, so equal definitions
 * give equal text whatever order their keys were written or read back from the database in.
 * Array order is kept: it is meaningful (enum order, required lists as written).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : sortKeys(v)));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortKeys(v);
  }
  return out;
}

/** sha256 (hex) of the canonical JSON of a definition: what `ai_tool.definition_checksum` stores. */
export function definitionChecksum(definition: LocalToolDefinition): string {
  return createHash('sha256').update(canonicalJson(definition)).digest('hex');
}

/**
 * The definition a row currently holds, read back in the decorator's shape. When its checksum equals the
 * row's stored checksum, nobody changed the row since the scanner wrote it.
 */
export function definitionOfRow(row: AiToolEntity): LocalToolDefinition {
  return {
    name: row.name,
    description: row.description,
    parameters: row.parameters,
    source: row.source as LocalToolSource,
    serviceType: row.serviceType as LocalToolDefinition['serviceType'],
    endpoint: row.endpoint,
    sideEffect: row.sideEffect,
    timeoutMs: row.timeoutMs,
    permissionTags: row.permissionTags,
    tags: row.tags,
    requires: row.requires,
    hitl: row.hitl,
    result: row.result,
  };
}
