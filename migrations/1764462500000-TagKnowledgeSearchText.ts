import { MigrationInterface, QueryRunner } from 'typeorm';
import { baseTag } from '../src/modules/knowledge-bases/knowledge-text.tokenizer';

type ChunkRow = { id: number | string; knowledge_base_id: string; search_text: string };

/** Chunks rewritten per statement batch (read by id, one UPDATE each). */
const BATCH = 500;

/** The token every chunk's search text began with before this migration (the base, required beside the terms). */
function formerBaseToken(knowledgeBaseId: string): string {
  return `kb_${knowledgeBaseId.replace(/[^0-9a-zA-Z]/g, '').toLowerCase()}`;
}

/**
 * Knowledge search texts hold each token behind its base's tag (`<tag>word`, see `baseTag`) instead of one
 * base-wide token in front: a search then reads only its base's postings in the full-text index (InnoDB read the
 * whole base's for the required base token on every search). Existing chunks are rewritten; SQLite's FTS5 index,
 * kept by insert and delete triggers only, is rebuilt from them.
 */
export class TagKnowledgeSearchText1764462500000 implements MigrationInterface {
  name = 'TagKnowledgeSearchText1764462500000';

  async up(q: QueryRunner): Promise<void> {
    await rewriteSearchTexts(q, (text, base) => {
      const tag = baseTag(base);
      const tokens = text.split(' ').filter((t) => t !== '');
      const words = tokens[0] === formerBaseToken(base) ? tokens.slice(1) : tokens;
      return words.map((w) => tag + w).join(' ');
    });
  }

  async down(q: QueryRunner): Promise<void> {
    await rewriteSearchTexts(q, (text, base) => {
      const tag = baseTag(base);
      const words = text
        .split(' ')
        .filter((t) => t !== '')
        .map((t) => (t.startsWith(tag) ? t.slice(tag.length) : t));
      return [formerBaseToken(base), ...words].join(' ');
    });
  }
}

async function rewriteSearchTexts(q: QueryRunner, rewrite: (text: string, knowledgeBaseId: string) => string) {
  for (let after = 0; ;) {
    const rows = (await q.query(
      `SELECT id, knowledge_base_id, search_text FROM knowledge_chunk WHERE id > ? ORDER BY id LIMIT ${BATCH}`,
      [after],
    )) as ChunkRow[];
    if (rows.length === 0) break;
    for (const r of rows) {
      await q.query('UPDATE knowledge_chunk SET search_text = ? WHERE id = ?', [
        rewrite(r.search_text, r.knowledge_base_id),
        r.id,
      ]);
    }
    after = Number(rows[rows.length - 1].id);
  }
  if (q.connection.options.type === 'better-sqlite3') {
    await q.query("INSERT INTO knowledge_chunk_fts (knowledge_chunk_fts) VALUES ('rebuild')");
  }
}
