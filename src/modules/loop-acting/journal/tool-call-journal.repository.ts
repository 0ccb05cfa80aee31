import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isUniqueViolation } from '@app/database/unique-violation';
import { runStatement } from '@app/database/run-statement';
import { HotSql } from '@app/database/hot-sql';
import { JournalEntry, JournalKey, JournalOutcome } from './journal.types';
import { textChunks } from '../results/tool-result.chunks';

type Row = Record<string, unknown>;

const COLUMNS =
  'tenant_id, session_id, tool_call_id, tool_name, tool_id, fingerprint, arguments_json, side_effect, state, result_status, attempts, iteration, owner, lease_expires_at, started_at, finished_at, duration_ms, is_error, error_class, content, total_chars, result_chunks, inline_limit';

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
 * The journal's queries, as raw SQL valid on SQLite, MySQL 8 and MariaDB (the hot path: one SELECT per act,
 * one INSERT and one UPDATE per call; TypeORM's entity manager would add a SELECT and a transaction each).
 */
@Injectable()
export class ToolCallJournalRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sql: HotSql,
  ) {}

  /** The entries of `toolCallIds` in one session, by toolCallId. */
  async findMany(
    tenantId: string,
    sessionId: string,
    toolCallIds: readonly string[],
  ): Promise<Map<string, JournalEntry>> {
    const out = new Map<string, JournalEntry>();
    if (toolCallIds.length === 0) return out;
    const marks = toolCallIds.map(() => '?').join(', ');
    const rows: Row[] = await this.sql.all(
      `SELECT ${COLUMNS} FROM tool_call_journal WHERE tenant_id = ? AND session_id = ? AND tool_call_id IN (${marks})`,
      [tenantId, sessionId, ...toolCallIds],
    );
    for (const row of rows) out.set(String(row.tool_call_id), toEntry(row));
    return out;
  }

  async find(key: JournalKey): Promise<JournalEntry | null> {
    return (await this.findMany(key.tenantId, key.sessionId, [key.toolCallId])).get(key.toolCallId) ?? null;
  }

  async listForSession(tenantId: string, sessionId: string): Promise<JournalEntry[]> {
    const rows: Row[] = await this.sql.all(
      `SELECT ${COLUMNS} FROM tool_call_journal WHERE tenant_id = ? AND session_id = ? ORDER BY started_at, tool_call_id`,
      [tenantId, sessionId],
    );
    return rows.map(toEntry);
  }

  /**
   * Side-effecting entries left STARTED by an owner whose lease expired, in sessions that are ACTIVE (a session
   * already waiting for a human is left alone), oldest first. Uses idx_tool_call_journal_lease.
   */
  async findOrphaned(now: number, limit: number): Promise<JournalEntry[]> {
    const rows: Row[] = await this.sql.all(
      `SELECT ${COLUMNS.split(', ')
        .map((c) => `j.${c}`)
        .join(', ')} FROM tool_call_journal j
         JOIN agent_session s ON s.id = j.session_id AND s.tenant_id = j.tenant_id
        WHERE j.state = 'STARTED' AND j.lease_expires_at < ? AND j.side_effect <> 'READ_ONLY' AND s.status = 'ACTIVE'
        ORDER BY j.lease_expires_at LIMIT ${Math.max(1, Math.floor(limit))}`,
      [now],
    );
    return rows.map(toEntry);
  }

  /** Inserts STARTED; false when another submission holds the key (the primary key decides). */
  async claim(e: NewJournalEntry, now: number): Promise<boolean> {
    return this.insert(e, 'STARTED', now, null);
  }

  /** Records a call that was refused before running (bad arguments, not visible) as FAILED, with its result. */
  async insertRefused(
    e: NewJournalEntry,
    now: number,
    content: string,
    errorClass: string,
    resultStatus: 'FAILED' | 'REJECTED' = 'FAILED',
  ): Promise<boolean> {
    return this.insert(e, 'FAILED', now, { content, errorClass, resultStatus });
  }

  /**
   * Moves a STARTED entry to a new owner (expired lease of a READ_ONLY call, or an approved RETRY), only if it
   * is still as it was read (compare-and-set on owner and lease).
   */
  async takeOver(
    key: JournalKey,
    seen: Pick<JournalEntry, 'owner' | 'leaseExpiresAt'>,
    owner: string,
    leaseExpiresAt: number,
    iteration: number,
  ): Promise<boolean> {
    const changed = await this.sql.run(
      `UPDATE tool_call_journal SET owner = ?, lease_expires_at = ?, iteration = ?, started_at = ?
        WHERE tenant_id = ? AND session_id = ? AND tool_call_id = ? AND state = 'STARTED' AND owner = ? AND lease_expires_at = ?`,
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
      ],
    );
    return changed === 1;
  }

  /**
   * Writes the outcome and the result together (one transaction when the result needs chunks). Only the
   * owner of a STARTED entry may finish it (pass `owner: null` for a human's MARK_DONE / REJECT).
   */
  async finish(key: JournalKey, owner: string | null, outcome: JournalOutcome, now: number): Promise<boolean> {
    const chunks = textChunks(outcome.content);
    const first = chunks[0] ?? '';
    const chunkCount = Math.max(0, chunks.length - 1);
    const sql = `UPDATE tool_call_journal SET state = ?, result_status = ?, attempts = attempts + ?, finished_at = ?, duration_ms = ?, is_error = ?, error_class = ?,
        content = ?, total_chars = ?, result_chunks = ?
      WHERE tenant_id = ? AND session_id = ? AND tool_call_id = ? AND state = 'STARTED'${owner === null ? '' : ' AND owner = ?'}`;
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
    if (owner !== null) params.push(owner);
    if (chunkCount === 0) return (await this.sql.run(sql, params)) === 1;
    return this.dataSource.transaction(async (m) => {
      if ((await runStatement(m, sql, params)) !== 1) return false;
      await this.writeChunks(m, key, chunks);
      return true;
    });
  }

  /**
   * Drops a STARTED claim this owner holds, leaving no outcome: for a READ_ONLY or IDEMPOTENT call cancelled
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

  /** Renews the lease of in-flight entries this instance owns (by primary key). */
  async renewLeases(owner: string, keys: Iterable<JournalKey>, leaseExpiresAt: number): Promise<void> {
    for (const k of keys) {
      await this.sql.run(
        `UPDATE tool_call_journal SET lease_expires_at = ? WHERE tenant_id = ? AND session_id = ? AND tool_call_id = ? AND owner = ? AND state = 'STARTED'`,
        [leaseExpiresAt, k.tenantId, k.sessionId, k.toolCallId, owner],
      );
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
  ): Promise<boolean> {
    const content = result?.content ?? null;
    const chunks = content === null ? [] : textChunks(content);
    const chunkCount = Math.max(0, chunks.length - 1);
    const params = [
      e.tenantId,
      e.sessionId,
      e.toolCallId,
      e.toolName,
      e.toolId,
      e.fingerprint,
      e.argumentsJson,
      e.sideEffect,
      state,
      result?.resultStatus ?? null,
      0,
      e.iteration,
      e.owner,
      e.leaseExpiresAt,
      now,
      result ? now : null,
      result ? 0 : null,
      result ? 1 : 0,
      result?.errorClass ?? null,
      content === null ? null : (chunks[0] ?? ''),
      content?.length ?? 0,
      chunkCount,
      e.inlineLimit,
    ];
    const sql = `INSERT INTO tool_call_journal (${COLUMNS}) VALUES (${params.map(() => '?').join(', ')})`;
    try {
      if (chunkCount === 0) {
        await this.sql.run(sql, params);
      } else {
        await this.dataSource.transaction(async (m) => {
          await m.query(sql, params);
          await this.writeChunks(m, e, chunks);
        });
      }
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  /** Writes chunks 1..n (chunk 0 is the entry's own `content`). */
  private async writeChunks(m: EntityManager, key: JournalKey, chunks: readonly string[]): Promise<void> {
    for (let seq = 1; seq < chunks.length; seq++) {
      await m.query('INSERT INTO tool_result_chunk (session_id, tool_call_id, seq, content) VALUES (?, ?, ?, ?)', [
        key.sessionId,
        key.toolCallId,
        seq,
        chunks[seq],
      ]);
    }
  }
}

function toEntry(r: Row): JournalEntry {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    tenantId: String(r.tenant_id),
    sessionId: String(r.session_id),
    toolCallId: String(r.tool_call_id),
    toolName: String(r.tool_name),
    toolId: (r.tool_id as string | null) ?? null,
    fingerprint: String(r.fingerprint),
    argumentsJson: String(r.arguments_json),
    sideEffect: String(r.side_effect),
    state: r.state as JournalEntry['state'],
    resultStatus: (r.result_status as string | null) ?? null,
    attempts: Number(r.attempts),
    iteration: Number(r.iteration),
    owner: String(r.owner),
    leaseExpiresAt: Number(r.lease_expires_at),
    startedAt: Number(r.started_at),
    finishedAt: num(r.finished_at),
    durationMs: num(r.duration_ms),
    isError: Number(r.is_error) === 1 || r.is_error === true,
    errorClass: (r.error_class as string | null) ?? null,
    content: (r.content as string | null) ?? null,
    totalChars: Number(r.total_chars),
    resultChunks: Number(r.result_chunks),
    inlineLimit: Number(r.inline_limit),
  };
}
