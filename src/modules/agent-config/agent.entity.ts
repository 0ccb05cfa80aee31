import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';
import { LargeText } from '@app/database/large-text.column';
import type { HitlReviewer, SideEffectPolicy, WebSearchMode } from './agent-config.types';

@Entity({ name: 'agent' })
@Index('uq_agent_tenant_name_key', ['tenantId', 'nameKey'], { unique: true })
@Index('idx_agent_tenant', ['tenantId'])
export class AgentEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  @Column({ type: 'varchar', length: 128 })
  name: string;

  /**
   * The name lower-cased (nameKeyOf): agent names are unique per tenant case-insensitively on every database. Twice
   * the name's length: `İ` lower-cases to two characters.
   */
  @Column({ name: 'name_key', type: 'varchar', length: 256 })
  nameKey: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ name: 'web_search_mode', type: 'varchar', length: 16 })
  webSearchMode: WebSearchMode;

  @Column({ name: 'side_effect_policy', type: 'varchar', length: 24 })
  sideEffectPolicy: SideEffectPolicy;

  /** ADMIN: a runtime key may only continue a CHECKPOINT_PAUSE; every other decision is an admin's. */
  @Column({ name: 'hitl_reviewer', type: 'varchar', length: 16, default: 'RUNTIME' })
  hitlReviewer: HitlReviewer;

  @Column({ name: 'max_iterations', type: 'int' })
  maxIterations: number;

  @Column({ name: 'skill_ids', type: 'simple-json' })
  skillIds: string[];

  /** Knowledge bases RAG_SEARCH may search (null on rows made before they existed: none). */
  @Column({ name: 'knowledge_base_ids', type: 'simple-json', nullable: true })
  knowledgeBaseIds: string[] | null;

  /** Agents of the same tenant this agent may delegate to (SUB_AGENT_CALL, SUBMIT_SUBAGENT_TASK). */
  @Column({ name: 'sub_agent_ids', type: 'simple-json', nullable: true })
  subAgentIds: string[] | null;

  /** The model provider of the gateway's own agent loop (null: the agent is driven by a runtime only). */
  @Column({ name: 'model_provider_id', type: 'varchar', length: 36, nullable: true })
  modelProviderId: string | null;

  /** The system prompt of the gateway's own agent loop. */
  @LargeText()
  @Column({ name: 'system_prompt', type: 'text', nullable: true })
  systemPrompt: string | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMs })
  updatedAt: number;
}
