import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';

/** A published workspace file: an immutable copy under WORKSPACE_ROOT/artifacts, described here. */
@Entity({ name: 'artifact' })
@Index('idx_artifact_tenant_session', ['tenantId', 'sessionId'])
// The tenant's quota sums sizes from the index alone.
@Index('idx_artifact_tenant_size', ['tenantId', 'size'])
// Retention reads the oldest first (ARTIFACTS_RETENTION_DAYS).
@Index('idx_artifact_created', ['createdAt'])
export class ArtifactEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  @Column({ name: 'session_id', type: 'varchar', length: 36 })
  sessionId: string;

  /** The file's name (last path segment). */
  @Column({ type: 'varchar', length: 255 })
  name: string;

  /** The workspace path it was published from. */
  @Column({ name: 'source_path', type: 'varchar', length: 1024 })
  sourcePath: string;

  @Column({ type: 'varchar', length: 255, nullable: true })
  title: string | null;

  /** Bytes (BIGINT read back as a number, like the epoch-ms columns). */
  @Column({ type: 'bigint', transformer: epochMs })
  size: number;

  @Column({ type: 'varchar', length: 64 })
  sha256: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;
}
