import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';
import { jsonText } from '@app/database/json-column';
import type { SessionEventType } from './session-event.types';

/**
 * An event kept in the transaction that commits its state, until the writer has put it in `session_event` (then
 * removed). One left here belongs to a process that died in between: written by the next outbox round. One the rounds
 * failed to write too often is given up: it stays here, never tried again (see `SessionEventOutboxRecovery`).
 */
@Entity({ name: 'session_event_outbox' })
@Index('idx_session_event_outbox_due', ['givenUpAt', 'retryAt', 'at'])
@Index('idx_session_event_outbox_session', ['sessionId'])
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

  /** Failed attempts of outbox rounds to write it. */
  @Column({ type: 'int', default: 0 })
  attempts: number;

  /** The earliest time an outbox round tries it again after a failed attempt (0: none failed). */
  @Column({ name: 'retry_at', type: 'bigint', transformer: epochMs, default: 0 })
  retryAt: number;

  /** When an outbox round gave up on it (kept for inspection, never tried again); NULL while it is tried. */
  @Column({ name: 'given_up_at', type: 'bigint', transformer: epochMs, nullable: true })
  givenUpAt: number | null;
}

/** An event as a transaction keeps it (no attempt made yet). */
export type KeptSessionEvent = Omit<SessionEventOutboxEntity, 'attempts' | 'retryAt' | 'givenUpAt'>;
