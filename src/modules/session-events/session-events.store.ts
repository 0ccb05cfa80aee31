import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { isDeadlock, isUniqueViolation } from '@app/database/unique-violation';
import { HotSql, sqlRowCount } from '@app/database/hot-sql';
import { HotTable } from '@app/database/hot-table';
import { databaseErrorCode } from '@app/database/database-error-code';
import { toIso } from '@app/database/epoch-ms.transformer';
import { SessionEventEntity } from './session-event.entity';
import type { KeptSessionEvent } from './session-event-outbox.entity';
import { SessionEventOutboxRepository } from './session-event-outbox.repository';
import { timeOrderedId } from '@app/common/time-ordered-id';
import { SessionEventWriteFault } from './session-event-write.fault';
import type { NewSessionEvent, SessionEventPage } from './session-event.types';

/** Two instances writing one session may pick the same next seq; the loser retries (the primary key decides). */
const MAX_SEQ_ATTEMPTS = 50;
/** How long an event recorded behind a call waits for others to share its commit (the act's next events, mostly). */
const RECORD_DELAY_MS = 10;
/** Events written by one statement at most (bounds the statement variants each connection prepares). */
const MAX_BATCH = 50;

/**
 * Events of any sessions in one statement (one round trip, one commit); the next seq of each session is taken inside
 * the INSERT: each row is numbered within its session in the batch (`k` = 1, 2...) and added to that session's last
 * seq. Each session's last seq is its own subquery on the primary key (`ORDER BY seq DESC LIMIT 1`: one index seek,
 * however many events the session has; a `MAX ... GROUP BY` over the sessions read every event of each session on
 * SQLite, and on MariaDB whenever it planned it as a lateral derived table). The subqueries sit in a derived table:
 * MySQL reads the target table of an INSERT there, not in a subquery of the SELECT list. A row whose `onceKey` the
 * session already has is left out (a batch with such a row is written one event at a time, so no seq is skipped), and
 * so is an event kept in the outbox whose row is gone: retention purged its session after an outbox round read the
 * row (written, it would outlive its session for ever), or another instance wrote it and removed the row.
 */
function sessionEventsInsert(batch: readonly PendingEvent[]): { sql: string; params: unknown[] } {
  const counts = new Map<string, number>();
  const params: unknown[] = [];
  for (const { event, at, outboxId } of batch) {
    const k = (counts.get(event.sessionId) ?? 0) + 1;
    counts.set(event.sessionId, k);
    const data = JSON.stringify(event.data);
    params.push(event.sessionId, k, event.tenantId, event.type, at, data, event.onceKey ?? null, outboxId ?? null);
  }
  const rows = batch
    .map((_, i) =>
      i === 0
        ? 'SELECT ? AS session_id, ? AS k, ? AS tenant_id, ? AS type, ? AS at, ? AS data, ? AS once_key, ? AS outbox_id'
        : 'SELECT ?, ?, ?, ?, ?, ?, ?, ?',
    )
    .join(' UNION ALL ');
  const lastSeq = '(SELECT e.seq FROM session_event e WHERE e.session_id = ? ORDER BY e.seq DESC LIMIT 1)';
  const lasts = [...counts.keys()]
    .map((_, i) => (i === 0 ? `SELECT ? AS session_id, ${lastSeq} AS n` : `SELECT ?, ${lastSeq}`))
    .join(' UNION ALL ');
  const sql =
    'INSERT INTO session_event (session_id, seq, tenant_id, type, at, data, once_key) ' +
    'SELECT r.session_id, COALESCE(m.n, 0) + r.k, r.tenant_id, r.type, r.at, r.data, r.once_key ' +
    `FROM (${rows}) r LEFT JOIN (${lasts}) m ON m.session_id = r.session_id ` +
    'WHERE (r.once_key IS NULL OR NOT EXISTS ' +
    '(SELECT 1 FROM session_event d WHERE d.session_id = r.session_id AND d.once_key = r.once_key)) ' +
    'AND (r.outbox_id IS NULL OR EXISTS (SELECT 1 FROM session_event_outbox o WHERE o.id = r.outbox_id))';
  return { sql, params: [...params, ...[...counts.keys()].flatMap((id) => [id, id])] };
}

interface PendingEvent {
  event: NewSessionEvent;
  at: number;
  /** Set for an awaited write: called once the event is written, or with what failed it. */
  written?: (failure?: unknown) => void;
  /** Its row in the outbox (an event of a transaction), removed once the event is written. */
  outboxId?: string;
  /** Set for a row of an outbox round, which counts and logs its failures itself (see SessionEventOutboxRecovery). */
  fromOutboxRound?: boolean;
  /** What failed writing it: its outbox row stays for the next outbox round. */
  failure?: unknown;
}

/**
 * The durable session events, written by the code that does the work. A session's `seq` is 1, 2, 3... taken inside
 * the INSERT as MAX + 1 under the primary key, so a reader that pages with `after` never skips one. Every event goes
 * through one queue in this process, written in order by one writer that writes whatever has queued up with one
 * statement (a group commit: one round trip and one log flush for many events), never inside a caller's transaction,
 * so an event can never make that transaction fail or deadlock (the outbox row a transaction keeps has its own new
 * id, which no other writer touches):
 * - {@link append} with a `manager` in a transaction: kept in `session_event_outbox` by that transaction and queued
 *   when it commits (dropped with it if it rolls back), so an event exists only when its work was committed
 *   ({@link flush} waits for it), and a process killed between the commit and the write leaves it in the outbox, where
 *   the outbox round ({@link writeKept}) writes it, once (its once-key);
 * - {@link append} otherwise: written before it resolves;
 * - {@link record}: for the per-call hot path, written behind the caller within {@link RECORD_DELAY_MS}.
 */
@Injectable()
export class SessionEventsStore implements OnApplicationShutdown {
  private readonly logger = new Logger(SessionEventsStore.name);
  /** Events waiting for the writer, oldest first. */
  private queue: PendingEvent[] = [];
  /** The writer while it runs: it drains the queue, one statement per batch. */
  private writing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Events the writer is done with (written or failed) since start, and those of its batch in flight: queue order. */
  private done = 0;
  private inFlight = 0;
  /** Readers waiting for the events queued before them, by how many must be done first (ascending: FIFO). */
  private readonly readers: Array<{ upTo: number; reached: () => void }> = [];
  /** Events of transactions still open, written when they commit. */
  private readonly afterCommit = new WeakMap<QueryRunner, PendingEvent[]>();
  /** Wakes this process's event streams of a session after an append (other instances are found by polling). */
  private readonly appended = new EventEmitter().setMaxListeners(0);

  /** Read and written one way, through HotSql, with the entity's columns and conversions. */
  private readonly table: HotTable<SessionEventEntity>;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly sql: HotSql,
    private readonly outbox: SessionEventOutboxRepository,
    private readonly fault: SessionEventWriteFault,
  ) {
    this.table = new HotTable(dataSource, SessionEventEntity);
    dataSource.subscribers.push({
      afterTransactionCommit: ({ queryRunner }) => this.committed(queryRunner),
      afterTransactionRollback: ({ queryRunner }) => {
        if (!queryRunner.isTransactionActive) this.afterCommit.delete(queryRunner);
      },
    });
  }

  /** Calls `listener` after each append to the session in this process; returns the unsubscribe. */
  onAppended(sessionId: string, listener: () => void): () => void {
    this.appended.on(sessionId, listener);
    return () => this.appended.off(sessionId, listener);
  }

  /** See the class: after the commit of `manager`'s transaction, or now. */
  async append(event: NewSessionEvent, manager?: EntityManager): Promise<void> {
    const runner = manager?.queryRunner;
    if (runner?.isTransactionActive) {
      const kept = await this.keep(event, manager!);
      const key = broadcastingRunner(runner);
      const pending = this.afterCommit.get(key) ?? [];
      pending.push(kept);
      this.afterCommit.set(key, pending);
      return;
    }
    await new Promise<void>((written) => {
      this.queue.push({ event, at: Date.now(), written: () => written() });
      this.writeSoon();
    });
  }

  /**
   * For the per-call hot path (tool and HITL events of `act`): written behind the caller, which does not wait for the
   * database; `at` is the moment of the call. The work itself is already durable in the journal: a crash in the
   * moment between the work and this write loses the event, never the work.
   */
  record(event: NewSessionEvent): void {
    this.queue.push({ event, at: Date.now() });
    if (!this.writing) this.timer ??= setTimeout(() => this.writeSoon(), RECORD_DELAY_MS).unref();
  }

  /**
   * Writes events a process kept in the outbox and did not write (it died after their commit), each once: one its
   * process wrote meanwhile is left out by its once-key. Their rows are removed once written. Returns what failed
   * each row not written, by its id (one that fails does not hold back the others, of its session or not).
   */
  async writeKept(rows: readonly KeptSessionEvent[]): Promise<Map<string, unknown>> {
    const failures = new Map<string, unknown>();
    const written = rows.map(
      ({ id, at, ...event }) =>
        new Promise<void>((done) => {
          const written = (failure?: unknown) => {
            if (failure !== undefined) failures.set(id, failure);
            done();
          };
          this.queue.push({ event, at, outboxId: id, fromOutboxRound: true, written });
        }),
    );
    this.writeSoon();
    await Promise.all(written);
    return failures;
  }

  /** Waits until every queued event is written, also those queued meanwhile (at shutdown; tests that read them at once). */
  async flush(): Promise<void> {
    while (this.queue.length > 0 || this.writing) {
      this.writeSoon();
      await this.writing;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  /**
   * Waits until the events queued before the call are written, not those queued after it: under a steady write load
   * the queue may never be empty, and a reader waiting for that (as {@link flush} does) would wait without bound.
   */
  async writtenSoFar(): Promise<void> {
    const upTo = this.done + this.inFlight + this.queue.length;
    if (upTo <= this.done) return;
    await new Promise<void>((reached) => {
      this.readers.push({ upTo, reached });
      this.writeSoon();
    });
  }

  /** Events of one session after `after`, oldest first (the caller has checked the session's tenant). */
  async page(sessionId: string, after: number, limit: number): Promise<SessionEventPage> {
    await this.writtenSoFar();
    const rows = await this.sql.all(
      `SELECT ${this.table.columnList} FROM session_event WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ${sqlRowCount(limit)}`,
      [sessionId, after],
    );
    const items = rows
      .map((r) => this.table.fromRow(r))
      .map((e) => ({ seq: e.seq, type: e.type, at: toIso(e.at)!, data: e.data }));
    return { items, nextAfter: items.length > 0 ? items[items.length - 1].seq : after };
  }

  /** `event` kept in the outbox in the transaction of `manager`, with a once-key (its own, or one of its row). */
  private async keep(event: NewSessionEvent, manager: EntityManager): Promise<PendingEvent> {
    const at = Date.now();
    // Ids of one millisecond sort in the order kept: a round writes a run's message before its run.finished.
    const id = timeOrderedId(at);
    const kept = { ...event, onceKey: event.onceKey ?? `outbox:${id}` };
    await this.outbox.keep({ id, at, ...kept }, manager);
    return { event: kept, at, outboxId: id };
  }

  /**
   * The outermost commit of a transaction that appended events: queue them. Not awaited by the commit: on SQLite the
   * commit still holds the connection's gate, which the writes need.
   */
  private committed(runner: QueryRunner): void {
    if (runner.isTransactionActive) return;
    const pending = this.afterCommit.get(runner);
    if (!pending) return;
    this.afterCommit.delete(runner);
    this.queue.push(...pending);
    this.writeSoon();
  }

  /** Starts the writer unless it runs (it takes what was queued meanwhile when its batch is done). */
  private writeSoon(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.writing || this.queue.length === 0) return;
    this.writing = this.drain().finally(() => {
      this.writing = null;
      // Queued after the drain's last look (it ends a microtask before this): not left waiting for the next append.
      if (this.queue.length > 0) this.writeSoon();
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      this.inFlight = batch.length;
      try {
        this.fault.reach(batch);
        await this.writeBatch(batch);
        await this.removeKept(batch);
        for (const sessionId of new Set(batch.map((p) => p.event.sessionId))) this.appended.emit(sessionId);
        for (const p of batch) p.written?.(p.failure);
      } finally {
        this.done += batch.length;
        this.inFlight = 0;
        while (this.readers.length > 0 && this.readers[0].upTo <= this.done) this.readers.shift()!.reached();
      }
    }
  }

  /**
   * The batch in one statement, numbered in queue order per session. When it fails (another instance took a seq of
   * one of its sessions first, or MySQL chose it as a deadlock victim), nothing of it was written: each event is then
   * written on its own. So is a batch with a keyed event (left out when already written, it must not leave a gap).
   */
  private async writeBatch(batch: PendingEvent[]): Promise<void> {
    if (!batch.some((p) => p.event.onceKey)) {
      try {
        const { sql, params } = sessionEventsInsert(batch);
        await this.sql.run(sql, params);
        return;
      } catch {
        // Nothing of it was written: one at a time below.
      }
    }
    for (const p of batch) {
      await this.insertAlone(p).catch((err: unknown) => {
        p.failure = err;
        if (p.fromOutboxRound) return;
        this.logger.warn(
          `Session event ${p.event.type} of session ${p.event.sessionId} was not recorded${p.outboxId ? ' (kept in the outbox: the next outbox round writes it)' : ''}: ${databaseErrorCode(err)}`,
        );
      });
    }
  }

  /** Removes the outbox rows of the batch's written events (a row left behind is written again once: its once-key). */
  private async removeKept(batch: readonly PendingEvent[]): Promise<void> {
    const ids = batch.filter((p) => p.outboxId && p.failure === undefined).map((p) => p.outboxId!);
    await this.outbox
      .remove(ids)
      .catch((err: unknown) =>
        this.logger.warn(
          `Written session events stay in the outbox (the next outbox round leaves them out by their once-keys): ${databaseErrorCode(err)}`,
        ),
      );
  }

  /**
   * One event alone (the same statement); on a lost race for its seq (primary key, or a MySQL deadlock) again, and
   * for its `onceKey` (the unique key: written meanwhile by another instance, so the next attempt leaves it out).
   */
  private async insertAlone(pending: PendingEvent): Promise<void> {
    const { sql, params } = sessionEventsInsert([pending]);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.sql.run(sql, params);
        return;
      } catch (err) {
        if (!(isUniqueViolation(err) || isDeadlock(err)) || attempt >= MAX_SEQ_ATTEMPTS) throw err;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(attempt, 10)));
      }
    }
  }
}

/**
 * The runner TypeORM names in its transaction events for `runner`: itself, or on SQLite the shared runner behind the
 * gate's per-transaction view (see `installSqliteGate`).
 */
function broadcastingRunner(runner: QueryRunner): QueryRunner {
  return (runner as unknown as { broadcaster?: { queryRunner?: QueryRunner } }).broadcaster?.queryRunner ?? runner;
}
