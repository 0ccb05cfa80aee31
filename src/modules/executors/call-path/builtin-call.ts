import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { ToolCallError } from '../tool-executor';

/** A platform built-in (source BUILTIN, platform-wide) of one of `names`: what a built-in dispatcher handles. */
export function isPlatformBuiltin(tool: ToolDescriptor, names: ReadonlySet<string> | readonly string[]): boolean {
  if (tool.source !== 'BUILTIN' || tool.tenantId !== null) return false;
  return Array.isArray(names) ? names.includes(tool.name) : (names as ReadonlySet<string>).has(tool.name);
}

/** A built-in refusing a call it cannot serve: a FAILED result the model reads, never retried, nothing reached. */
export function builtinRefusal(message: string): ToolCallError {
  return new ToolCallError(message, 'BUILTIN_REFUSED', { transient: false, reachedRemote: false });
}
