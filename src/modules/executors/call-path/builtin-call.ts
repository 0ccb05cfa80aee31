import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { databaseErrorCode } from '@app/database/database-error-code';
import { ToolCallError } from '../tool-executor';
import { ToolErrorClass } from '../tool-error-class';

/** A platform built-in (source BUILTIN, platform-wide) of one of `names`: what a built-in dispatcher handles. */
export function isPlatformBuiltin(tool: ToolDescriptor, names: ReadonlySet<string> | readonly string[]): boolean {
  if (tool.source !== 'BUILTIN' || tool.tenantId !== null) return false;
  return Array.isArray(names) ? names.includes(tool.name) : (names as ReadonlySet<string>).has(tool.name);
}

/** A built-in refusing a call it cannot serve: a FAILED result the model reads, never retried, nothing reached. */
export function builtinRefusal(message: string): ToolCallError {
  return new ToolCallError(message, 'BUILTIN_REFUSED', { transient: false, reachedRemote: false });
}

/**
 * The refusal of a built-in that works only in a session, called outside one (`execute`): where to call it, and in a
 * session with which `capability` when it needs a workspace.
 */
export function builtinOutsideSession(toolName: string, capability?: string): ToolCallError {
  return builtinRefusal(
    capability
      ? `${toolName} works only inside a session with a workspace; call it with POST /api/v1/sessions/{id}/act in a session created with capabilities ["${capability}"]`
      : `${toolName} works only inside a session; call it with POST /api/v1/sessions/{id}/act`,
  );
}

/**
 * A built-in whose statement the gateway's database refused as busy or unreachable (a deadlock victim, a lock wait
 * timeout, a lost connection): worth another attempt, which the retry policy makes within the call's budget for a
 * READ_ONLY or IDEMPOTENT built-in. What was written may have been committed (a connection lost after its commit), so
 * it counts as reached. The model reads the driver's code only: its message may quote what a statement wrote. A
 * SIDE_EFFECT or HIGH_RISK built-in may have done its work before the refused statement (EDIT_FILE edits the file, then
 * writes its event): the model is told to check before calling it again, as after a timeout, not to call it again.
 */
export function builtinDatabaseBusy(tool: Pick<ToolDescriptor, 'name' | 'sideEffect'>, err: unknown): ToolCallError {
  const next =
    tool.sideEffect === 'READ_ONLY' || tool.sideEffect === 'IDEMPOTENT'
      ? 'make the call again'
      : 'it may have taken effect: check before making the call again';
  return new ToolCallError(
    `${tool.name} could not use the gateway's database, busy or unreachable (${databaseErrorCode(err)}); ${next}`,
    ToolErrorClass.DATABASE_UNAVAILABLE,
    { transient: true, reachedRemote: true, cause: err },
  );
}
