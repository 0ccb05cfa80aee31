import type { SideEffectLevel } from '@app/modules/tool-registry/tool-registry.types';

/** The MCP tool annotations the side-effect level is derived from (MCP 2025-03-26 `ToolAnnotations`). */
export interface McpToolHints {
  readOnlyHint?: unknown;
  destructiveHint?: unknown;
  idempotentHint?: unknown;
}

/**
 * The side-effect level of an MCP tool, from its annotations, failing safe:
 * - `readOnlyHint: true` → READ_ONLY (the other hints only mean something for tools that write);
 * - else `destructiveHint: true` (explicitly) → HIGH_RISK: a tool that says it destroys data needs a human
 *   (act asks for approval; executeDirect refuses it);
 * - else `idempotentHint: true` → IDEMPOTENT (retries after a transient error are safe);
 * - else (no annotation, or only `destructiveHint: false`) → SIDE_EFFECT.
 * The MCP spec's own default for a missing `destructiveHint` is "destructive"; SIDE_EFFECT is used instead,
 * as the gateway's contract asks, so every unannotated tool is treated alike (retried only when provably
 * not sent, approvable by agent policy). Hints come from the remote server and are not trusted to loosen
 * anything an admin set: see the sync plan.
 */
export function sideEffectOf(hints: McpToolHints | undefined): SideEffectLevel {
  if (!hints) return 'SIDE_EFFECT';
  if (hints.readOnlyHint === true) return 'READ_ONLY';
  if (hints.destructiveHint === true) return 'HIGH_RISK';
  if (hints.idempotentHint === true) return 'IDEMPOTENT';
  return 'SIDE_EFFECT';
}
