import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { isUniqueViolation } from '@app/database/unique-violation';
import { HotSql } from '@app/database/hot-sql';
import { textChunks } from '../results/tool-result.chunks';
import type { ActResponse } from './act.types';

export type ResumeClaim = { kind: 'claimed' } | { kind: 'done'; response: ActResponse } | { kind: 'running' };

const CHUNK_KEY = (clientMessageId: string) => `resume:${clientMessageId}`;

/** Resume records: the claim of a clientMessageId and the stored response that a repeat gets back. */
@Injectable()
export class ResumeRecordRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sql: HotSql,
  ) {}

  /**
   * Claims (session, clientMessageId). A record left IN_PROGRESS by a process that died (older than
   * `staleAfterMs`) is taken over, so a repeated resume finishes what the dead one started.
   */
  async claim(sessionId: string, clientMessageId: string, staleAfterMs: number): Promise<ResumeClaim> {
    const now = Date.now();
    try {
      await this.sql.run(
        'INSERT INTO resume_record (session_id, client_message_id, state, response_chunks, created_at) VALUES (?, ?, ?, ?, ?)',
        [sessionId, clientMessageId, 'IN_PROGRESS', 0, now],
      );
      return { kind: 'claimed' };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
    const [row] = await this.sql.all(
      'SELECT state, response_chunks, created_at FROM resume_record WHERE session_id = ? AND client_message_id = ?',
      [sessionId, clientMessageId],
    );
    if (row?.state === 'DONE') return { kind: 'done', response: await this.readResponse(sessionId, clientMessageId) };
    const seen = Number(row?.created_at);
    if (now - seen < staleAfterMs) return { kind: 'running' };
    const taken = await this.sql.run(
      "UPDATE resume_record SET created_at = ? WHERE session_id = ? AND client_message_id = ? AND state = 'IN_PROGRESS' AND created_at = ?",
      [now, sessionId, clientMessageId, seen],
    );
    return taken === 1 ? { kind: 'claimed' } : { kind: 'running' };
  }

  /** Stores the response (in chunks) and marks the record DONE, in one transaction. */
  async complete(sessionId: string, clientMessageId: string, response: ActResponse): Promise<void> {
    const chunks = textChunks(JSON.stringify(response));
    await this.dataSource.transaction(async (m) => {
      for (let seq = 0; seq < chunks.length; seq++) {
        await m.query('INSERT INTO tool_result_chunk (session_id, tool_call_id, seq, content) VALUES (?, ?, ?, ?)', [
          sessionId,
          CHUNK_KEY(clientMessageId),
          seq,
          chunks[seq],
        ]);
      }
      await m.query(
        "UPDATE resume_record SET state = 'DONE', response_chunks = ? WHERE session_id = ? AND client_message_id = ?",
        [chunks.length, sessionId, clientMessageId],
      );
    });
  }

  /** Gives the claim back when the resume failed before deciding anything (a validation or state error). */
  async release(sessionId: string, clientMessageId: string): Promise<void> {
    await this.sql.run(
      "DELETE FROM resume_record WHERE session_id = ? AND client_message_id = ? AND state = 'IN_PROGRESS'",
      [sessionId, clientMessageId],
    );
  }

  private async readResponse(sessionId: string, clientMessageId: string): Promise<ActResponse> {
    const rows = await this.sql.all<{ content: string }>(
      'SELECT content FROM tool_result_chunk WHERE session_id = ? AND tool_call_id = ? ORDER BY seq',
      [sessionId, CHUNK_KEY(clientMessageId)],
    );
    return JSON.parse(rows.map((r) => r.content).join('')) as ActResponse;
  }
}
