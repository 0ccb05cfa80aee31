import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { col } from './migration-columns';
import { textChunks } from '../src/modules/loop-acting/results/tool-result.chunks';

type Row = Record<string, string | number | null>;

/**
 * A resume's stored response gets its own column on `resume_record` (LONGTEXT on MySQL, TEXT on SQLite) instead
 * of `tool_result_chunk` rows under a made-up tool call id `resume:<clientMessageId>`. One UPDATE stores it with
 * the DONE state, so a crash keeps either the claim or the claim and its answer. Answers already stored move over.
 */
export class StoreResumeResponses1764461900000 implements MigrationInterface {
  name = 'StoreResumeResponses1764461900000';

  async up(q: QueryRunner): Promise<void> {
    const type = q.connection.options.type === 'better-sqlite3' ? 'text' : 'longtext';
    await q.addColumn('resume_record', new TableColumn({ name: 'response', type, isNullable: true }));
    const done = (await q.query(
      "SELECT session_id, client_message_id FROM resume_record WHERE state = 'DONE'",
    )) as Row[];
    for (const r of done) {
      const callId = `resume:${String(r.client_message_id)}`;
      const chunks = (await q.query(
        'SELECT content FROM tool_result_chunk WHERE session_id = ? AND tool_call_id = ? ORDER BY seq',
        [r.session_id, callId],
      )) as Row[];
      await q.query('UPDATE resume_record SET response = ? WHERE session_id = ? AND client_message_id = ?', [
        chunks.map((c) => String(c.content)).join(''),
        r.session_id,
        r.client_message_id,
      ]);
      await q.query('DELETE FROM tool_result_chunk WHERE session_id = ? AND tool_call_id = ?', [r.session_id, callId]);
    }
    await q.dropColumn('resume_record', 'response_chunks');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.addColumn('resume_record', new TableColumn({ ...col.int('response_chunks'), default: 0 }));
    const done = (await q.query(
      "SELECT session_id, client_message_id, response FROM resume_record WHERE state = 'DONE'",
    )) as Row[];
    for (const r of done) {
      const chunks = textChunks(String(r.response ?? ''));
      for (const [seq, content] of chunks.entries()) {
        await q.query('INSERT INTO tool_result_chunk (session_id, tool_call_id, seq, content) VALUES (?, ?, ?, ?)', [
          r.session_id,
          `resume:${String(r.client_message_id)}`,
          seq,
          content,
        ]);
      }
      await q.query('UPDATE resume_record SET response_chunks = ? WHERE session_id = ? AND client_message_id = ?', [
        chunks.length,
        r.session_id,
        r.client_message_id,
      ]);
    }
    await q.dropColumn('resume_record', 'response');
  }
}
