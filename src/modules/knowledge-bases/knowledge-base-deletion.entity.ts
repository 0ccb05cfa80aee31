import { Column, Entity, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';

/**
 * `knowledge_base_deletion`: a knowledge base whose row is deleted and whose passages and terms are still being
 * removed (see KnowledgeBaseDeletions). Its id is the deleted base's.
 */
@Entity({ name: 'knowledge_base_deletion' })
export class KnowledgeBaseDeletionEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  @Column({ name: 'started_at', type: 'bigint', transformer: epochMs })
  startedAt: number;
}
