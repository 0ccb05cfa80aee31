import { nameKeyOf } from '@app/common/name-key';
import { randomUUID } from 'node:crypto';
import { AiToolEntity, PLATFORM_SCOPE } from '@app/modules/tool-registry/ai-tool.entity';
import type { LocalToolRegistration } from './feign-tool.types';
import { canonicalJson } from '@app/common/canonical-json';
import { definitionChecksum, definitionOfRow } from './feign-tool.checksum';

/** One decision of the start-up reconcile, for one tool or one orphaned row. */
export type ReconcileStep =
  | { kind: 'insert'; name: string; tool: LocalToolRegistration; row: AiToolEntity }
  | {
      kind: 'update';
      name: string;
      tool: LocalToolRegistration;
      row: AiToolEntity;
      changes: Partial<AiToolEntity>;
      replaced: string[];
    }
  | { kind: 'unchanged'; name: string; tool: LocalToolRegistration; row: AiToolEntity }
  | { kind: 'clash'; name: string; tool: LocalToolRegistration; row: AiToolEntity }
  | { kind: 'orphan'; name: string; row: AiToolEntity; changes: Partial<AiToolEntity> | null };

/**
 * Declared fields an admin owns once changed: a changed decorator replaces them only on a row nobody edited.
 * (`enabled`, the third admin-owned field, is never declared: the decorator never writes it after the insert.)
 */
const ADMIN_OWNED_DECLARED_FIELDS = ['timeoutMs', 'permissionTags'] as const;

/** Fields an admin may PATCH on scanner rows that the decorator still owns: replaced when it changes. */
const PATCHABLE_SOURCE_FIELDS = ['sideEffect', 'requires', 'hitl', 'result'] as const;

/** Rows a scanner wrote (others with the same name are DB or MCP tools the scanner must not touch). */
export function isScannerOwned(row: AiToolEntity): boolean {
  if (row.tenantId !== null || row.definitionChecksum === null) return false;
  return (
    (row.source === 'FEIGN' && row.serviceType === 'FEIGN') || (row.source === 'BUILTIN' && row.serviceType === 'LOCAL')
  );
}

/**
 * What to do with a scanned tool given its platform-wide row (if any):
 * - no row → insert version 1;
 * - a row another source owns → clash, untouched;
 * - same checksum → unchanged (an orphan-disabled row is re-activated);
 * - another checksum → the decorator's fields replace the row's and the version is bumped, except the
 *   admin-owned `timeoutMs` / `permissionTags` when the row shows an admin's edit (its own fields no longer
 *   hash to its stored checksum) and `enabled`, which the decorator never sets. A RETIRED row stays RETIRED.
 */
export function planTool(
  tool: LocalToolRegistration,
  row: AiToolEntity | null | undefined,
  now: number,
): ReconcileStep {
  const name = tool.definition.name;
  if (!row) return { kind: 'insert', name, tool, row: newRow(tool, now) };
  if (!isScannerOwned(row)) return { kind: 'clash', name, tool, row };
  const revive: Partial<AiToolEntity> = row.status === 'DISABLED' ? { status: 'ACTIVE' } : {};
  if (row.definitionChecksum === tool.checksum) {
    if (!revive.status) return { kind: 'unchanged', name, tool, row };
    return {
      kind: 'update',
      name,
      tool,
      row,
      changes: { ...revive, version: row.version + 1, updatedAt: now },
      replaced: [],
    };
  }
  const d = tool.definition;
  const adminEdited = definitionChecksum(definitionOfRow(row)) !== row.definitionChecksum;
  const changes: Partial<AiToolEntity> = {
    name: d.name, // the same name (the row was found by its key), perhaps spelt in another case
    description: d.description,
    parameters: d.parameters,
    source: d.source,
    serviceType: d.serviceType,
    endpoint: d.endpoint,
    sideEffect: d.sideEffect,
    tags: d.tags,
    requires: d.requires,
    hitl: d.hitl,
    result: d.result,
    ...(adminEdited ? {} : Object.fromEntries(ADMIN_OWNED_DECLARED_FIELDS.map((f) => [f, d[f]]))),
    ...revive,
    definitionChecksum: tool.checksum,
    version: row.version + 1,
    updatedAt: now,
  };
  const replaced = adminEdited
    ? PATCHABLE_SOURCE_FIELDS.filter((f) => canonicalJson(row[f]) !== canonicalJson(d[f]))
    : [];
  return { kind: 'update', name, tool, row, changes, replaced };
}

/** A scanner row whose decorator is gone: set DISABLED (never deleted); already DISABLED or RETIRED rows stay. */
export function planOrphan(row: AiToolEntity, now: number): ReconcileStep {
  const changes =
    row.status === 'ACTIVE' ? { status: 'DISABLED' as const, version: row.version + 1, updatedAt: now } : null;
  return { kind: 'orphan', name: row.name, row, changes };
}

function newRow(tool: LocalToolRegistration, now: number): AiToolEntity {
  const d = tool.definition;
  return {
    ...d,
    nameKey: nameKeyOf(d.name),
    id: randomUUID(),
    tenantId: null,
    scopeKey: PLATFORM_SCOPE,
    httpMethod: null,
    headers: null,
    remoteName: null,
    enabled: true,
    status: 'ACTIVE',
    version: 1,
    mcpServiceId: null,
    definitionChecksum: tool.checksum,
    createdAt: now,
    updatedAt: now,
  };
}
