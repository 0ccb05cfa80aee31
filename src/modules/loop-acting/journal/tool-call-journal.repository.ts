import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { isUniqueViolation } from '@app/database/unique-violation';
import { HotSql, HotStatements, sqlRowCount } from '@app/database/hot-sql';
import { HotTable } from '@app/database/hot-table';
import {
  JOURNAL_LIST_FIELDS,
  JournalClaim,
  JournalEntry,
  JournalKey,
  JournalListEntry,
  JournalOutcome,
} from './journal.types';
import { ToolCallJournalEntity } from './tool-call-journal.entity';
import { textChunks } from '../results/tool-result.chunks';

type Row = Record<string, unknown>;

/** toolCallIds per `IN (...)` of {@link ToolCallJournalRepository.existingIds}. */
const ID_SLICE = 500;
/** Entries per lease renewal statement (bounds its parameters and the statement variants a connection prepares). */
const RENEW_SLICE = 50;

/** New entry: STARTED (a claim) or, for calls refused before running, already FAILED. */
export interface NewJournalEntry extends JournalKey {
  toolName: string;
  toolId: string | null;
  fingerprint: string;
  argumentsJson: string;
  sideEffect: string;
  iteration: number;
  owner: string;
  leaseExpiresAt: number;
  inlineLimit: number;
}

/**
 * What writing a new entry came to: written; `TAKEN`, another submission holds the toolCallId; `SESSION_CLOSED`,
 * nothing written because the session was closed.
 */
export type ClaimOutcome = 'CLAIMED' | 'TAKEN' | 'SESSION_CLOSED';

/**
 * Every read and write of `tool_call_journal` (and of the result chunks it owns), as raw SQL valid on SQLite,
 * MySQL 8 and MariaDB through {@link HotSql} (the hot path: one SELECT per act, one INSERT and one UPDATE per call;
 * TypeORM's entity manager would add a SELECT and a transaction each). Columns come from the entity ({@link HotTable}).
 */
@Injectable()
export class ToolCallJournalRepository {
  readonly table: HotTable<ToolCallJournalEntity>;
  /** A new entry, written only while its session (the last parameter) is not CLOSED: the check and the write are one statement. */
  private readonly insertWhileOpen: string;
  /** A new entry whatever its session's status (the session is the last parameter, unused). */
  private readonly insertAlways: string;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly sql: HotSql,
  ) {
    this.table = new HotTable(dataSource, ToolCallJournalEntity);
    const insertWhere = (condition: string) => `INSERT INTO tool_call_journal (${this.table.columnList})
      SELECT ${this.table.rowMarks.slice(1, -1)} FROM agent_session WHERE ${condition}`;
    this.insertWhileOpen = insertWhere("id = ? AND status <> 'CLOSED'");
    this.insertAlways = insertWhere('id = ?');
  }

  /** The entries of `toolCallIds` in one session, by toolCallId (`db`: a transaction to read in). */
  async findMany(
    tenantId: string,
    sessionId: string,
    toolCallIds: readonly string[],
    db: HotStatements = this.sql,
  ): Promise<Map<string, JournalEntry>> {
    const out = new Map<string, JournalEntry>();
    if (toolCallIds.length === 0) return out;
    const marks = toolCallIds.map(() => '?').join(', ');
    const rows: Row[] = await db.all(
      `SELECT ${this.table.columnList} FROM tool_call_journal WHERE tenant_id = ? AND session_id = ? AND tool_call_id IN (${marks})`,
      [tenantId, sessionId, ...toolCallIds],
    );
    for (const row of rows) out.set(String(row.tool_call_id), this.toEntry(row));
    return out;
  }

  /**
   * Whether a call of the session is still running somewhere (STARTED, its owner's lease live at `now`: it will
   * finish and write its events, also in a closed session), and when its last call finished (0: none has).
   */
  async callActivity(
    tenantId: string,
    sessionId: string,
    now: number,
  ): Promise<{ running: boolean; lastFinishedAt: number }> {
    const [row] = await this.sql.all<{ running: string | number | null; last_finished: string | number | null }>(
      `SELECT COUNT(CASE WHEN state = 'STARTED' AND lease_expires_at > ? THEN 1 END) AS running, MAX(finished_at) AS last_finished
        FROM tool_call_journal WHERE tenant_id = ? AND session_id = ?`,
      [now, tenantId, sessionId],
    );
    return { running: Number(row?.running ?? 0) > 0, lastFinishedAt: Number(row?.last_finished ?? 0) };
  }

  /** Which of `toolCallIds` the session's journal already holds (the ids only: no result is read). */
  async existingIds(tenantId: string, sessionId: string, toolCallIds: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    // In slices: a model's answer may hold tens of thousands of calls, past SQLite's 32,766 bound variables.
    for (let i = 0; i < toolCallIds.length; i += ID_SLICE) {
      const slice = toolCallIds.slice(i, i + ID_SLICE);
      const rows: Row[] = await this.sql.all(
        `SELECT tool_call_id FROM tool_call_journal WHERE tenant_id = ? AND session_id = ? AND tool_call_id IN (${slice.map(() => '?').join(', ')})`,
        [tenantId, sessionId, ...slice],
      );
      for (const r of rows) found.add(String(r.tool_call_id));
    }
    return found;
  }

  async find(key: JournalKey, db?: HotStatements): Promise<JournalEntry | null> {
    return (await this.findMany(key.tenantId, key.sessionId, [key.toolCallId], db)).get(key.toolCallId) ?? null;
  }

  /**
   * One page of a session's entries in call order, with only the columns of the admin view (never the arguments or
   * the result: a session's journal may hold thousands of results of up to their inline limit), and their count.
   */
  async pageForSession(
    tenantId: string,
    sessionId: string,
    skip: number,
    take: number,
  ): Promise<[JournalListEntry[], number]> {
    const where = 'WHERE tenant_id = ? AND session_id = ?';
    const [rows, [count]] = await Promise.all([
      this.sql.all(
        `SELECT ${this.table.columnsOf(JOURNAL_LIST_FIELDS)} FROM tool_call_journal ${where}
          ORDER BY started_at, tool_call_id LIMIT ${sqlRowCount(take)} OFFSET ${sqlRowCount(skip)}`,
        [tenantId, sessionId],
      ),
      this.sql.all<{ total: string | number }>(`SELECT COUNT(*) AS total FROM tool_call_journal ${where}`, [
        tenantId,
        sessionId,
      ]),
    ]);
    return [rows.map((r) => this.table.fromRow(r)), Number(count?.total ?? 0)];
  }

  /**
   * Side-effecting entries left STARTED by an owner whose lease expired, in sessions that are ACTIVE (a session
   * already waiting for a human is left alone), oldest first. Uses idx_tool_call_journal_lease.
   */
  findOrphaned(now: number, limit: number): Promise<JournalEntry[]> {
    return this.findDeadOwned("j.side_effect <> 'READ_ONLY' AND s.status = 'ACTIVE'", now, limit);
  }

  /**
   * Entries left STARTED by an owner whose lease expired in sessions that are CLOSED (of any side effect), oldest
   * first: nothing runs them again or asks a human about them any more. Uses idx_tool_call_journal_lease.
   */
  findAbandonedInClosedSessions(now: number, limit: number): Promise<JournalEntry[]> {
    return this.findDeadOwned("s.status = 'CLOSED'", now, limit);
  }

  private async findDeadOwned(where: string, now: number, limit: number): Promise<JournalEntry[]> {
    const rows: Row[] = await this.sql.all(
      `SELECT ${this.table.aliasedList('j', '')} FROM tool_call_journal j
         JOIN agent_session s ON s.id = j.session_id AND s.tenant_id = j.tenant_id
        WHERE j.state = 'STARTED' AND j.lease_expires_at < ? AND ${where}
        ORDER BY j.lease_expires_at LIMIT ${sqlRowCount(limit)}`,
      [now],
    );
    return rows.map((r) => this.toEntry(r));
  }

  /**
   * Inserts STARTED, in the same statement as the check that the session is not CLOSED: `TAKEN` when another
   * submission holds the key (the primary key decides), `SESSION_CLOSED` when the session was closed meanwhile
   * (nothing written: a batch running at the close starts no further call). `alongside` (e.g. recording the session's
   * new iteration) commits in the same transaction, only with a won claim.
   */
  async claim(
    e: NewJournalEntry,
    now: number,
    alongside?: (tx: HotStatements) => Promise<void>,
  ): Promise<ClaimOutcome> {
    return this.insert(e, 'STARTED', now, null, alongside);
  }

  /**
   * Records a call that was refused before running (bad arguments, not visible, rejected by a reviewer) as FAILED, with
   * its result; `within`: in that transaction (a reviewer's REJECT, with the decision).
   */
  async insertRefused(
    e: NewJournalEntry,
    now: number,
    content: string,
    errorClass: string,
    resultStatus: 'FAILED' | 'REJECTED' = 'FAILED',
    within?: HotStatements,
  ): Promise<ClaimOutcome> {
    return this.insert(e, 'FAILED', now, { content, errorClass, resultStatus }, undefined, within);
  }

  /**
   * The row of a call a reviewer's REJECT ends before it ran, written in `tx`, the decision's transaction, also when
   * that transaction is the session's close (its REJECT of the request the session waited for). A decision made
   * through a resume moves the session by compare-and-set in the same transaction, so it is never written after a
   * close that the resume did not see.
   */
  async insertRejected(e: NewJournalEntry, now: number, content: string, tx: HotStatements): Promise<ClaimOutcome> {
    const result = { content, errorClass: 'REJECTED', resultStatus: 'REJECTED' };
    return this.insert(e, 'FAILED', now, result, undefined, tx, this.insertAlways);
  }

  /**
   * Moves a STARTED entry to a new owner (expired lease of a READ_ONLY call, or an approved RETRY), only if it
   * is still as it was read (compare-and-set on owner and lease) and its session is not CLOSED: like a claim, the check
   * and the write are one statement, so a batch running at the close runs no such call again after it.
   */
  async takeOver(
    key: JournalKey,
    seen: Pick<JournalEntry, 'owner' | 'leaseExpiresAt'>,
    owner: string,
    leaseExpiresAt: number,
    iteration: number,
  ): Promise<ClaimOutcome> {
    const changed = await this.sql.run(
      `UPDATE tool_call_journal SET owner = ?, lease_expires_at = ?, iteration = ?, started_at = ?
        WHERE tenant_id = ? AND session_id = ? AND tool_call_id = ? AND state = 'STARTED' AND owner = ? AND lease_expires_at = ?
          AND EXISTS (SELECT 1 FROM agent_session s WHERE s.id = ? AND s.status <> 'CLOSED')`,
      [
        owner,
        leaseExpiresAt,
        iteration,
        Date.now(),
        key.tenantId,
        key.sessionId,
        key.toolCallId,
        seen.owner,
        seen.leaseExpiresAt,
        key.sessionId,
      ],
    );
    if (changed === 1) return 'CLAIMED';
    const open = await this.sql.all("SELECT 1 AS open FROM agent_session WHERE id = ? AND status <> 'CLOSED'", [
      key.sessionId,
    ]);
    return open.length > 0 ? 'TAKEN' : 'SESSION_CLOSED';
  }

  /**
   * Writes the outcome and the result together (one transaction when the result needs chunks). Only the
   * claim (token) holding a STARTED entry may finish it (pass `owner: null` for a human's MARK_DONE / REJECT: only while the
   * lease is expired, never over an owner that is back and still running the call). `within`: in that transaction.
   */
  async finish(
    key: JournalKey,
    owner: string | null,
    outcome: JournalOutcome,
    now: number,
    within?: HotStatements,
  ): Promise<boolean> {
    const chunks = textChunks(outcome.content);
    const first = chunks[0] ?? '';
    const chunkCount = Math.max(0, chunks.length - 1);
    const sql = `UPDATE tool_call_journal SET state = ?, result_status = ?, attempts = attempts + ?, finished_at = ?, duration_ms = ?, is_error = ?, error_class = ?,
        content = ?, total_chars = ?, result_chunks = ?
      WHERE tenant_id = ? AND session_id = ? AND tool_call_id = ? AND state = 'STARTED'${owner === null ? ' AND lease_expires_at < ?' : ' AND owner = ?'}`;
    const params: unknown[] = [
      outcome.state,
      outcome.resultStatus,
      outcome.attempts,
      now,
      Math.round(outcome.durationMs),
      outcome.isError ? 1 : 0,
      outcome.errorClass,
      first,
      outcome.content.length,
      chunkCount,
      key.tenantId,
      key.sessionId,
      key.toolCallId,
    ];
    params.push(owner ?? now);
    const write = async (db: HotStatements): Promise<boolean> => {
      if ((await db.run(sql, params)) !== 1) return false;
      await this.writeChunks(db, key, chunks);
      return true;
    };
    if (within) return write(within);
    if (chunkCount === 0) return (await this.sql.run(sql, params)) === 1;
    return this.sql.transaction(write);
  }

  /**
   * Drops a STARTED claim this attempt holds (`owner`: its claim token), leaving no outcome: for a READ_ONLY or IDEMPOTENT call cancelled
   * because its client went away (running it again is harmless, so a resubmission should run it, not reuse a
   * cancellation).
   */
  async release(key: JournalKey, owner: string): Promise<boolean> {
    const changed = await this.sql.run(
      `DELETE FROM tool_call_journal WHERE tenant_id = ? AND session_id = ? AND tool_call_id = ? AND state = 'STARTED' AND owner = ?`,
      [key.tenantId, key.sessionId, key.toolCallId, owner],
    );
    return changed === 1;
  }

  /**
   * Renews the lease of in-flight entries by their claims (primary key and claim token): one statement for up to
   * {@link RENEW_SLICE} entries, so a renewal round costs one round trip, not one per call in flight. The state is
   * tested in each claim's branch: as a term of its own it led SQLite to idx_tool_call_journal_lease, through every
   * STARTED entry (every call in flight, every call awaiting a human) instead of one primary key lookup per claim.
   */
  async renewLeases(claims: Iterable<JournalClaim>, leaseExpiresAt: number): Promise<void> {
    const all = [...claims];
    for (let i = 0; i < all.length; i += RENEW_SLICE) {
      const slice = all.slice(i, i + RENEW_SLICE);
      const byClaim = slice
        .map(() => "(tenant_id = ? AND session_id = ? AND tool_call_id = ? AND state = 'STARTED' AND owner = ?)")
        .join(' OR ');
      await this.sql.run(`UPDATE tool_call_journal SET lease_expires_at = ? WHERE ${byClaim}`, [
        leaseExpiresAt,
        ...slice.flatMap((c) => [c.tenantId, c.sessionId, c.toolCallId, c.owner]),
      ]);
    }
  }

  /** The whole stored result of a finished entry (first chunk + continuation chunks). */
  async readContent(entry: JournalEntry): Promise<string> {
    if (entry.resultChunks === 0) return entry.content ?? '';
    const rows: Row[] = await this.sql.all(
      'SELECT content FROM tool_result_chunk WHERE session_id = ? AND tool_call_id = ? ORDER BY seq',
      [entry.sessionId, entry.toolCallId],
    );
    return (entry.content ?? '') + rows.map((r) => String(r.content)).join('');
  }

  private async insert(
    e: NewJournalEntry,
    state: 'STARTED' | 'FAILED',
    now: number,
    result: { content: string; errorClass: string; resultStatus: string } | null,
    alongside?: (tx: HotStatements) => Promise<void>,
    within?: HotStatements,
    statement = this.insertWhileOpen,
  ): Promise<ClaimOutcome> {
    const content = result?.content ?? null;
    const chunks = content === null ? [] : textChunks(content);
    const chunkCount = Math.max(0, chunks.length - 1);
    const row: ToolCallJournalEntity = {
      tenantId: e.tenantId,
      sessionId: e.sessionId,
      toolCallId: e.toolCallId,
      toolName: e.toolName,
      toolId: e.toolId,
      fingerprint: e.fingerprint,
      argumentsJson: e.argumentsJson,
      sideEffect: e.sideEffect,
      state,
      resultStatus: result?.resultStatus ?? null,
      attempts: 0,
      iteration: e.iteration,
      owner: e.owner,
      leaseExpiresAt: e.leaseExpiresAt,
      startedAt: now,
      finishedAt: result ? now : null,
      durationMs: result ? 0 : null,
      isError: result !== null,
      errorClass: result?.errorClass ?? null,
      content: content === null ? null : (chunks[0] ?? ''),
      totalChars: content?.length ?? 0,
      resultChunks: chunkCount,
      inlineLimit: e.inlineLimit,
    };
    const params = [...this.table.values(row), e.sessionId];
    const write = async (db: HotStatements): Promise<ClaimOutcome> => {
      if (!(await db.run(statement, params))) return 'SESSION_CLOSED';
      await this.writeChunks(db, e, chunks);
      return 'CLAIMED';
    };
    try {
      if (within) return await write(within);
      if (chunkCount === 0 && !alongside)
        return (await this.sql.run(this.insertWhileOpen, params)) ? 'CLAIMED' : 'SESSION_CLOSED';
      return await this.sql.transaction(async (tx) => {
        // The session row is written first (its iteration), so the insert's read of it cannot deadlock another claim.
        await alongside?.(tx);
        return write(tx);
      });
    } catch (err) {
      if (isUniqueViolation(err)) return 'TAKEN';
      throw err;
    }
  }

  /** A row (columns named `<prefix><column>`) as a journal entry. */
  toEntry(row: Row, prefix = ''): JournalEntry {
    return this.table.fromRow(row, prefix);
  }

  /** Writes chunks 1..n (chunk 0 is the entry's own `content`). */
  private async writeChunks(tx: HotStatements, key: JournalKey, chunks: readonly string[]): Promise<void> {
    for (let seq = 1; seq < chunks.length; seq++) {
      await tx.run('INSERT INTO tool_result_chunk (session_id, tool_call_id, seq, content) VALUES (?, ?, ?, ?)', [
        key.sessionId,
        key.toolCallId,
        seq,
        chunks[seq],
      ]);
    }
  }
}
