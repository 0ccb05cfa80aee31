import { AiToolEntity } from '@app/modules/tool-registry/ai-tool.entity';
import { AgentEntity } from '@app/modules/agent-config/agent.entity';
import { AgentToolBindingEntity } from '@app/modules/agent-config/agent-tool-binding.entity';
import { TenantCapabilityEntity } from '@app/modules/agent-config/tenant-capability.entity';
import { ApiKeyEntity } from '@app/modules/api-keys/api-key.entity';
import { ToolCallLogEntity } from '@app/modules/executors/tool-call-log/tool-call-log.entity';
import { AgentSessionEntity } from '@app/modules/loop-acting/sessions/agent-session.entity';
import { ToolCallJournalEntity } from '@app/modules/loop-acting/journal/tool-call-journal.entity';
import { ToolResultChunkEntity } from '@app/modules/loop-acting/results/tool-result-chunk.entity';
import { ResumeRecordEntity } from '@app/modules/loop-acting/acting/resume-record.entity';
import { HitlRequestEntity } from '@app/modules/hitl/requests/hitl-request.entity';
import { McpServiceEntity } from '@app/modules/mcp-services/mcp-service.entity';
import { McpSyncLeaseEntity } from '@app/modules/mcp-services/mcp-sync-lease.entity';
import { TenantSecretEntity } from '@app/modules/tenant-secrets/tenant-secret.entity';
import { SessionEventEntity } from '@app/modules/session-events/session-event.entity';
import { SessionEventOutboxEntity } from '@app/modules/session-events/session-event-outbox.entity';
import { SkillEntity } from '@app/modules/skills/skill.entity';
import { SkillReleaseEntity } from '@app/modules/skills/skill-release.entity';
import { SkillFileEntity } from '@app/modules/skills/skill-file.entity';
import { ModelProviderEntity } from '@app/modules/model-providers/model-provider.entity';
import { AgentRunEntity } from '@app/modules/agent-runs/agent-run.entity';
import { AgentMessageEntity } from '@app/modules/agent-runs/agent-message.entity';
import { AgentTaskEntity } from '@app/modules/agent-runs/subagents/agent-task.entity';
import { KnowledgeBaseEntity } from '@app/modules/knowledge-bases/knowledge-base.entity';
import { KnowledgeDocumentEntity } from '@app/modules/knowledge-bases/knowledge-document.entity';
import { KnowledgeBaseDeletionEntity } from '@app/modules/knowledge-bases/knowledge-base-deletion.entity';
import { ConfigVersionEntity, TenantConfigVersionEntity } from './config-version.entity';
import { ArtifactEntity } from '@app/modules/workspace/artifact.entity';

/** Every entity of the gateway (the options builder registers exactly these). */
export const GATEWAY_ENTITIES = [
  AiToolEntity,
  AgentEntity,
  AgentToolBindingEntity,
  TenantCapabilityEntity,
  ApiKeyEntity,
  ConfigVersionEntity,
  ToolCallLogEntity,
  AgentSessionEntity,
  ToolCallJournalEntity,
  ToolResultChunkEntity,
  ResumeRecordEntity,
  HitlRequestEntity,
  McpServiceEntity,
  McpSyncLeaseEntity,
  TenantConfigVersionEntity,
  TenantSecretEntity,
  SessionEventEntity,
  SessionEventOutboxEntity,
  SkillEntity,
  SkillReleaseEntity,
  SkillFileEntity,
  ModelProviderEntity,
  AgentRunEntity,
  AgentMessageEntity,
  AgentTaskEntity,
  KnowledgeBaseEntity,
  KnowledgeDocumentEntity,
  KnowledgeBaseDeletionEntity,
  ArtifactEntity,
];
