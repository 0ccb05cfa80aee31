import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';
import { jsonText } from '@app/database/json-column';
import type { SessionEventType } from './session-event.types';

/** One durable event of a session; `seq` orders a session's events (1, 2, 3...: no gaps, no reordering). */
@Entity({ name: 'session_event' })
@Index('uq_session_event_once_key', ['sessionId', 'onceKey'], { unique: true })
export class SessionEventEntity {
  @PrimaryColumn({ name: 'session_id', type: 'varchar', length: 36 })
  sessionId: string;

  @PrimaryColumn({ type: 'int' })
  seq: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  @Column({ type: 'varchar', length: 32 })
  type: SessionEventType;

  @Column({ type: 'bigint', transformer: epochMs })
  at: number;

  @Column({ type: 'text', transformer: jsonText })
  data: Record<string, unknown>;

  /** Set on an event a session has at most once (see `NewSessionEvent.onceKey`); NULL on the others. */
  @Column({ name: 'once_key', type: 'varchar', length: 64, nullable: true })
  onceKey: string | null;
}
