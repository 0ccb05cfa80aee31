import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';

/** An agent may call a tool only while this row exists (discovery is not authorization). */
@Entity({ name: 'agent_tool_binding' })
@Index('idx_agent_tool_binding_tool', ['toolId'])
export class AgentToolBindingEntity {
  @PrimaryColumn({ name: 'agent_id', type: 'varchar', length: 36 })
  agentId: string;

  @PrimaryColumn({ name: 'tool_id', type: 'varchar', length: 36 })
  toolId: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;
}
