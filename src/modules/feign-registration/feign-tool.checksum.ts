import { createHash } from 'node:crypto';
import { canonicalJson } from '@app/common/canonical-json';
import type { AiToolEntity } from '@app/modules/tool-registry/ai-tool.entity';
import type { LocalToolDefinition } from './feign-tool.types';
import type { LocalToolSource } from './feign-tool.options';
import type { ToolRequirement } from '@app/modules/tool-registry/tool-registry.types';

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
    requires: row.requires as ToolRequirement[],
    hitl: row.hitl,
    result: row.result,
  };
}
