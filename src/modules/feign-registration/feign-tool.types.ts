import type {
  JsonSchema,
  ServiceType,
  SideEffectLevel,
  ToolHitlPolicy,
  ToolRequirement,
  ToolResultPolicy,
} from '@app/modules/tool-registry/tool-registry.types';
import type { LocalToolSource } from './feign-tool.options';

/** The second argument of a `@Tool` / `@FeignTool` method: who calls, and the signal that cancels the call. */
export interface LocalToolContext {
  toolCallId: string;
  tenantId: string | null;
  userId: string | null;
  /** Aborted when the call's budget runs out or the caller cancels: pass it on to I/O the method starts. */
  signal: AbortSignal;
}

/** A decorated method bound to its provider instance. */
export type LocalToolHandler = (args: Record<string, unknown>, context: LocalToolContext) => unknown;

/**
 * The decorator's declaration resolved into registry fields. Its canonical JSON is what the checksum
 * covers, so every field has exactly one representation (null, never undefined).
 */
export interface LocalToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchema;
  source: LocalToolSource;
  serviceType: Extract<ServiceType, 'LOCAL' | 'FEIGN'>;
  endpoint: string;
  sideEffect: SideEffectLevel;
  timeoutMs: number | null;
  permissionTags: string[];
  tags: string[];
  requires: ToolRequirement[];
  hitl: ToolHitlPolicy | null;
  result: ToolResultPolicy | null;
}

/** Where a decorated method lives, for messages and the drift report. */
export interface LocalToolLocation {
  provider: string;
  method: string;
  /** The Nest module that declares the provider. */
  module: string;
}

/** One scanned tool: its definition, checksum, location and bound handler. */
export interface LocalToolRegistration {
  definition: LocalToolDefinition;
  checksum: string;
  location: LocalToolLocation;
  handler: LocalToolHandler;
}

export const LOCAL_TOOL_SERVICE_TYPE: Record<LocalToolSource, LocalToolDefinition['serviceType']> = {
  BUILTIN: 'LOCAL',
  FEIGN: 'FEIGN',
};
