import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';
import { jsonText } from '@app/database/json-column';
import type { SessionEventType } from './session-event.types';

/**
 * An event kept in the transaction that commits its state, until the writer has put it in `session_event` (then
 * removed). One left here belongs to a process that died in between: written by the next outbox round.
 */
@Entity({ name: 'session_event_outbox' })
@Index('idx_session_event_outbox_at', ['at'])
export class SessionEventOutboxEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'session_id', type: 'varchar', length: 36 })
  sessionId: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  @Column({ type: 'varchar', length: 32 })
  type: SessionEventType;

  @Column({ type: 'bigint', transformer: epochMs })
  at: number;

  @Column({ type: 'text', transformer: jsonText })
  data: Record<string, unknown>;

  /** The event's once-key: written twice (by its process and by a round), it still reaches the stream once. */
  @Column({ name: 'once_key', type: 'varchar', length: 64 })
  onceKey: string;
}
