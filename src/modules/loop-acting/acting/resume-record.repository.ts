import { Injectable } from '@nestjs/common';
import { isUniqueViolation } from '@app/database/unique-violation';
import { HotSql, HotStatements } from '@app/database/hot-sql';
import type { ActResponse } from './act.types';

/** `claimed`: `at` is the claim's heartbeat (`created_at`) as written; renewals move it on. */
export type ResumeClaim =
  { kind: 'claimed'; at: number } | { kind: 'done'; response: ActResponse } | { kind: 'running' };

/** Resume records: the claim of a clientMessageId and the stored response that a repeat gets back. */
@Injectable()
export class ResumeRecordRepository {
  constructor(private readonly sql: HotSql) {}

  /**
   * Claims (session, clientMessageId). A record left IN_PROGRESS by a process that died (not renewed for
   * `staleAfterMs`: ResumeClaimRenewer renews a live one) is taken over, so a repeated resume finishes what the dead one started.
   */
  async claim(sessionId: string, clientMessageId: string, staleAfterMs: number): Promise<ResumeClaim> {
    const now = Date.now();
    try {
      await this.sql.run(
        'INSERT INTO resume_record (session_id, client_message_id, state, created_at) VALUES (?, ?, ?, ?)',
        [sessionId, clientMessageId, 'IN_PROGRESS', now],
      );
      return { kind: 'claimed', at: now };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
    const [row] = await this.sql.all(
      'SELECT state, response, created_at FROM resume_record WHERE session_id = ? AND client_message_id = ?',
      [sessionId, clientMessageId],
    );
    if (row?.state === 'DONE') return { kind: 'done', response: JSON.parse(String(row.response)) as ActResponse };
    const seen = Number(row?.created_at);
    if (now - seen < staleAfterMs) return { kind: 'running' };
    const taken = await this.sql.run(
      "UPDATE resume_record SET created_at = ? WHERE session_id = ? AND client_message_id = ? AND state = 'IN_PROGRESS' AND created_at = ?",
      [now, sessionId, clientMessageId, seen],
    );
    return taken === 1 ? { kind: 'claimed', at: now } : { kind: 'running' };
  }

  /** The response stored under (session, clientMessageId), if its decision is DONE. */
  async findResponse(sessionId: string, clientMessageId: string): Promise<ActResponse | undefined> {
    const [row] = await this.sql.all(
      "SELECT response FROM resume_record WHERE session_id = ? AND client_message_id = ? AND state = 'DONE'",
      [sessionId, clientMessageId],
    );
    return row ? (JSON.parse(String(row.response)) as ActResponse) : undefined;
  }

  /**
   * Moves the heartbeat of a claim still IN_PROGRESS from `from` (the last one this holder wrote) to `to`, so a
   * resume that works longer than `staleAfterMs` is not taken over. False: the claim is no longer this holder's.
   */
  async renew(sessionId: string, clientMessageId: string, from: number, to: number): Promise<boolean> {
    const renewed = await this.sql.run(
      "UPDATE resume_record SET created_at = ? WHERE session_id = ? AND client_message_id = ? AND state = 'IN_PROGRESS' AND created_at = ?",
      [to, sessionId, clientMessageId, from],
    );
    return renewed === 1;
  }

  /**
   * Stores the response and marks the record DONE in one statement: a crash keeps both or neither. The first response
   * stored stays. A holder that stalled may find its record gone (a repeat took the claim over, met the call still
   * running and gave the claim back) or claimed anew: the decision it carried out is the one that happened, so its
   * response is stored all the same, else every later repeat was refused instead of getting it. `db`: a transaction to
   * store it in (the one that moves the session on).
   */
  async complete(
    sessionId: string,
    clientMessageId: string,
    response: ActResponse,
    db: HotStatements = this.sql,
  ): Promise<void> {
    const json = JSON.stringify(response);
    const store = () =>
      db.run(
        "UPDATE resume_record SET state = 'DONE', response = ? WHERE session_id = ? AND client_message_id = ? AND state = 'IN_PROGRESS'",
        [json, sessionId, clientMessageId],
      );
    if ((await store()) === 1) return;
    try {
      await db.run(
        'INSERT INTO resume_record (session_id, client_message_id, state, response, created_at) VALUES (?, ?, ?, ?, ?)',
        [sessionId, clientMessageId, 'DONE', json, Date.now()],
      );
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // Claimed again meanwhile (stored over it) or DONE already (kept).
      await store();
    }
  }

  /**
   * The claims of decisions saved and never carried out: a resume or admin decision that died after saving its
   * decision left its claim IN_PROGRESS (not renewed since `staleBefore`) while the session still waits, INTERRUPTED,
   * with the request DECIDED under that claim's key. Oldest sessions first is not promised; at most `limit`.
   */
  async findAbandonedDecisions(staleBefore: number, limit: number): Promise<{ sessionId: string; key: string }[]> {
    const rows = await this.sql.all(
      `SELECT r.session_id, r.client_message_id FROM agent_session s
         JOIN hitl_request h ON h.session_id = s.id AND h.status = 'DECIDED'
         JOIN resume_record r ON r.session_id = h.session_id AND r.client_message_id = h.client_message_id
        WHERE s.status = 'INTERRUPTED' AND r.state = 'IN_PROGRESS' AND r.created_at < ?
        LIMIT ${Math.max(1, Math.floor(limit))}`,
      [staleBefore],
    );
    return rows.map((row) => ({ sessionId: String(row.session_id), key: String(row.client_message_id) }));
  }

  /**
   * Gives the claim back when the resume failed before deciding anything (a validation or state error), if it is
   * still this holder's (its heartbeat is `at`): a claim another request took over after a stall is left to it.
   */
  async release(sessionId: string, clientMessageId: string, at: number): Promise<void> {
    await this.sql.run(
      "DELETE FROM resume_record WHERE session_id = ? AND client_message_id = ? AND state = 'IN_PROGRESS' AND created_at = ?",
      [sessionId, clientMessageId, at],
    );
  }
}
