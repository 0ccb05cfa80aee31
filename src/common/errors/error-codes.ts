import { CommonErrorCode } from './common.errors';
import { ToolRegistryErrorCode } from '@app/modules/tool-registry/tool-registry.errors';
import { AgentConfigErrorCode } from '@app/modules/agent-config/agent-config.errors';
import { ToolInvocationErrorCode } from '@app/modules/tool-invocation/tool-invocation.errors';
import { LoopActingErrorCode } from '@app/modules/loop-acting/loop-acting.errors';
import { McpServicesErrorCode } from '@app/modules/mcp-services/mcp-services.errors';
import { TenantSecretsErrorCode } from '@app/modules/tenant-secrets/tenant-secrets.errors';
import { ModelProvidersErrorCode } from '@app/modules/model-providers/model-providers.errors';
import { AgentRunsErrorCode } from '@app/modules/agent-runs/agent-runs.errors';
import { SandboxErrorCode } from '@app/modules/sandbox/sandbox.errors';
import { SkillsErrorCode } from '@app/modules/skills/skills.errors';
import { KnowledgeBasesErrorCode } from '@app/modules/knowledge-bases/knowledge-bases.errors';
import { WorkspaceErrorCode } from '@app/modules/workspace/workspace.errors';

/** Every code a {@link DomainError} may carry: the union of each module's `*.errors.ts`. */
export type ErrorCode =
  | CommonErrorCode
  | ToolRegistryErrorCode
  | AgentConfigErrorCode
  | ToolInvocationErrorCode
  | LoopActingErrorCode
  | McpServicesErrorCode
  | TenantSecretsErrorCode
  | SandboxErrorCode
  | SkillsErrorCode
  | ModelProvidersErrorCode
  | AgentRunsErrorCode
  | KnowledgeBasesErrorCode
  | WorkspaceErrorCode;

/**
 * HTTP status per code. A `Record` over the union: a code added to a module's enum without a status
 * here fails to compile.
 */
export const ERROR_HTTP_STATUS: Record<ErrorCode, number> = {
  [CommonErrorCode.VALIDATION_FAILED]: 400,
  [CommonErrorCode.UNAUTHENTICATED]: 401,
  [CommonErrorCode.FORBIDDEN]: 403,
  [CommonErrorCode.NOT_FOUND]: 404,
  [CommonErrorCode.ROUTE_NOT_FOUND]: 404,
  [CommonErrorCode.PAYLOAD_TOO_LARGE]: 413,
  [CommonErrorCode.CONCURRENT_MODIFICATION]: 409,
  [CommonErrorCode.INTERNAL]: 500,
  [CommonErrorCode.METHOD_NOT_ALLOWED]: 405,
  [CommonErrorCode.UNSUPPORTED_MEDIA_TYPE]: 415,
  [CommonErrorCode.TOO_MANY_REQUESTS]: 429,
  [CommonErrorCode.CONFLICT]: 409,
  [CommonErrorCode.REQUEST_REJECTED]: 400,
  [CommonErrorCode.SHUTTING_DOWN]: 503,
  [ToolRegistryErrorCode.TOOL_NAME_TAKEN]: 409,
  [ToolRegistryErrorCode.TOOL_NOT_EDITABLE]: 409,
  [AgentConfigErrorCode.AGENT_NAME_TAKEN]: 409,
  [ToolInvocationErrorCode.HITL_REQUIRED]: 409,
  [ToolInvocationErrorCode.WEB_SEARCH_REQUIRES_SESSION]: 409,
  [LoopActingErrorCode.STALE_ITERATION]: 409,
  [LoopActingErrorCode.TOOL_CALL_CONFLICT]: 409,
  [LoopActingErrorCode.TOOL_CALL_IN_PROGRESS]: 409,
  [LoopActingErrorCode.SESSION_INTERRUPTED]: 409,
  [LoopActingErrorCode.SESSION_CLOSED]: 409,
  [LoopActingErrorCode.NO_PENDING_REQUEST]: 409,
  [LoopActingErrorCode.HITL_TOOL_CALL_MISMATCH]: 409,
  [LoopActingErrorCode.HITL_ALREADY_DECIDED]: 409,
  [LoopActingErrorCode.RESUME_IN_PROGRESS]: 409,
  [LoopActingErrorCode.HITL_ADMIN_REVIEW_REQUIRED]: 403,
  [McpServicesErrorCode.MCP_SERVICE_NAME_TAKEN]: 409,
  [McpServicesErrorCode.NACOS_NOT_CONFIGURED]: 409,
  [McpServicesErrorCode.MCP_SERVICE_UNREACHABLE]: 502,
  [TenantSecretsErrorCode.SECRETS_NOT_CONFIGURED]: 409,
  [ModelProvidersErrorCode.MODEL_PROVIDER_NAME_TAKEN]: 409,
  [AgentRunsErrorCode.RUN_IN_PROGRESS]: 409,
  [AgentRunsErrorCode.AGENT_HAS_NO_MODEL]: 409,
  [SandboxErrorCode.SANDBOX_UNAVAILABLE]: 409,
  [SkillsErrorCode.SKILL_ARCHIVE_INVALID]: 400,
  [SkillsErrorCode.SKILL_NAME_TAKEN]: 409,
  [SkillsErrorCode.SKILL_RELEASE_LIMIT]: 409,
  [KnowledgeBasesErrorCode.KNOWLEDGE_BASE_NAME_TAKEN]: 409,
  [KnowledgeBasesErrorCode.KNOWLEDGE_BASE_NOT_INTERNAL]: 409,
  [KnowledgeBasesErrorCode.KNOWLEDGE_BASE_UNREACHABLE]: 502,
  [WorkspaceErrorCode.WORKSPACE_PATH_INVALID]: 400,
  [WorkspaceErrorCode.WORKSPACE_QUOTA_EXCEEDED]: 413,
  [WorkspaceErrorCode.WORKSPACE_UNAVAILABLE]: 409,
};
