import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { InjectDataSource } from '@nestjs/typeorm';
import { In, MoreThan, type DataSource, type EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { isUniqueViolation } from '@app/database/unique-violation';
import { HotSql } from '@app/database/hot-sql';
import { toIso } from '@app/database/epoch-ms.transformer';
import { SessionEventEntity } from './session-event.entity';
import type { NewSessionEvent, SessionEventPage } from './session-event.types';

/** Two writers of one session may pick the same next seq; the loser retries (the primary key decides). */
const MAX_SEQ_ATTEMPTS = 50;

/**
 * The durable session events. `append` is called by the code that does the work (inside its transaction when it
 * passes its `manager`): an event exists exactly when its work was committed. A session's `seq` is 1, 2, 3...
 * taken as MAX + 1 under the primary key, so a reader that pages with `after` never skips one.
 */
@Injectable()
export class SessionEventsStore implements OnApplicationShutdown {
  private readonly logger = new Logger(SessionEventsStore.name);
  /** The last write behind the caller of each session ({@link record}): the next one waits for it. */
  private readonly behind = new Map<string, Promise<void>>();
  /** Wakes this process's event streams of a session after an append (other instances are found by polling). */
  private readonly appended = new EventEmitter().setMaxListeners(0);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sql: HotSql,
  ) {}

  /** Calls `listener` after each append to the session in this process; returns the unsubscribe. */
  onAppended(sessionId: string, listener: () => void): () => void {
    this.appended.on(sessionId, listener);
    return () => this.appended.off(sessionId, listener);
  }

  /**
   * For the per-call hot path (tool and HITL events of `act`): written behind the caller, which does not wait for the
   * database, in order per session within this process; `at` is the moment of the call. The work itself is already
   * durable in the journal: a crash in the moment between the work and this write loses the event, never the work.
   */
  record(event: NewSessionEvent): void {
    const at = Date.now();
    const previous = this.behind.get(event.sessionId) ?? Promise.resolve();
    const next = previous
      .then(() => this.insertNext(event, at))
      .then(
        () => undefined,
        (err: unknown) =>
          this.logger.warn(
            `Session event ${event.type} of session ${event.sessionId} was not recorded: ${(err as Error).name}: ${String((err as Error).message).slice(0, 200)}`,
          ),
      );
    this.behind.set(event.sessionId, next);
    void next.then(() => {
      if (this.behind.get(event.sessionId) === next) this.behind.delete(event.sessionId);
    });
  }

  /**
   * One statement: the next seq is taken inside the INSERT (MAX + 1 of the session). Another instance writing the
   * same session at the same moment loses on the primary key (or a deadlock on MySQL) and tries again.
   */
  private async insertNext(event: NewSessionEvent, at: number): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.sql.run(
          // The MAX in a derived table: MySQL neither mixes it with plain values (ONLY_FULL_GROUP_BY) nor reads the
          // target table in a subquery of the VALUES.
          'INSERT INTO session_event (session_id, seq, tenant_id, type, at, data) ' +
            'SELECT ?, next_seq.n, ?, ?, ?, ? FROM ' +
            '(SELECT COALESCE(MAX(seq), 0) + 1 AS n FROM session_event WHERE session_id = ?) next_seq',
          [event.sessionId, event.tenantId, event.type, at, JSON.stringify(event.data), event.sessionId],
        );
        this.appended.emit(event.sessionId);
        return;
      } catch (err) {
        if (!(isUniqueViolation(err) || isDeadlock(err)) || attempt >= MAX_SEQ_ATTEMPTS) throw err;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(attempt, 10)));
      }
    }
  }

  /** Waits for the events written behind their callers (at shutdown; tests that read them at once). */
  async flush(): Promise<void> {
    while (this.behind.size > 0) await Promise.all([...this.behind.values()]);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  async append(
    event: NewSessionEvent,
    manager: EntityManager = this.dataSource.manager,
    at: number = Date.now(),
  ): Promise<number> {
    const repo = manager.getRepository(SessionEventEntity);
    for (let attempt = 1; ; attempt++) {
      const last = await repo
        .createQueryBuilder('e')
        .select('MAX(e.seq)', 'max')
        .where('e.session_id = :id', { id: event.sessionId })
        .getRawOne<{ max: number | string | null }>();
      const seq = Number(last?.max ?? 0) + 1;
      try {
        await repo.insert({ ...event, seq, at } as QueryDeepPartialEntity<SessionEventEntity>);
        // Inside a caller's transaction the wake-up may come before the commit: the stream's poll then finds it.
        this.appended.emit(event.sessionId);
        return seq;
      } catch (err) {
        if (!isUniqueViolation(err) || attempt >= MAX_SEQ_ATTEMPTS || manager.queryRunner?.isTransactionActive)
          throw err;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(attempt, 10)));
      }
    }
  }

  /** Events of one session after `after`, oldest first (the caller has checked the session's tenant). */
  async page(sessionId: string, after: number, limit: number): Promise<SessionEventPage> {
    const rows = await this.dataSource.getRepository(SessionEventEntity).find({
      where: { sessionId, seq: MoreThan(after) },
      order: { seq: 'ASC' },
      take: limit,
    });
    const items = rows.map((r) => ({ seq: r.seq, type: r.type, at: toIso(r.at)!, data: r.data }));
    return { items, nextAfter: items.length > 0 ? items[items.length - 1].seq : after };
  }

  /** Removes every event of the sessions (retention, session deletion). */
  async deleteForSessions(
    sessionIds: readonly string[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    if (sessionIds.length === 0) return;
    await manager.getRepository(SessionEventEntity).delete({ sessionId: In(sessionIds as string[]) });
  }
}

/** MySQL/MariaDB chose this statement as a deadlock victim (two INSERT ... SELECT on one session's range). */
function isDeadlock(err: unknown): boolean {
  const e = err as { errno?: number; driverError?: { errno?: number } } | null;
  return (e?.driverError?.errno ?? e?.errno) === 1213;
}
