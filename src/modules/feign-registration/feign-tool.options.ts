import type { Type } from '@nestjs/common';
import type {
  JsonSchema,
  SideEffectLevel,
  ToolHitlPolicy,
  ToolRequirement,
  ToolResultPolicy,
} from '@app/modules/tool-registry/tool-registry.types';

/**
 * What a service team declares with `@Tool(...)` or `@FeignTool(...)` on a provider method.
 * The scanner turns it into a platform-wide `ai_tool` row at start-up.
 */
export interface LocalToolOptions {
  /**
   * The tool's name as the model sees it; must match `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$` (a letter or _ first).
   * Default: the method name in snake_case (`listOrdersByCustomer` → `list_orders_by_customer`).
   */
  name?: string;
  /** What the tool does and when to use it; the model reads this to choose the tool. */
  description: string;
  /**
   * The arguments: a JSON Schema object (`type: "object"`), or a DTO class whose class-validator /
   * `@nestjs/swagger` property decorators are turned into one (see `jsonSchemaFromDto`).
   */
  parameters: JsonSchema | Type<unknown>;
  /**
   * Required, no default: whether a call only reads (`READ_ONLY`), may be repeated safely (`IDEMPOTENT`),
   * writes (`SIDE_EFFECT`) or is dangerous (`HIGH_RISK`). Drives retries, policies and HITL.
   */
  sideEffect: SideEffectLevel;
  /** Outer budget of one call in ms (default: TOOL_DEFAULT_TIMEOUT_MS). An admin may override it. */
  timeoutMs?: number;
  /** A user sees the tool only when holding every tag (default: none). An admin may override them. */
  permissionTags?: string[];
  /** Free labels for admins and searches. */
  tags?: string[];
  /** What the session must provide for the tool to be offered. */
  requires?: ToolRequirement[];
  /** Human approval: the text a reviewer sees and what a rejection does. */
  hitl?: ToolHitlPolicy;
  /** Result handling: inline size limit and fields to redact in logs and reviews. */
  result?: ToolResultPolicy;
}

/** Metadata key under which the decorators store their options on the method. */
export const LOCAL_TOOL_METADATA = 'gateway:local-tool';

/** `@Tool` registers a BUILTIN/LOCAL tool, `@FeignTool` a FEIGN/FEIGN one. */
export type LocalToolSource = 'BUILTIN' | 'FEIGN';

/** What the decorators store on the method. */
export interface LocalToolMetadata {
  source: LocalToolSource;
  options: LocalToolOptions;
}
