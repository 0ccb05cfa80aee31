import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { HotSql } from '@app/database/hot-sql';
import { baseTag } from './knowledge-text.tokenizer';

/** A chunk ready to store: its text and the tokens (joined by spaces) the full-text index holds. */
export interface IndexedChunk {
  seq: number;
  heading: string | null;
  content: string;
  searchText: string;
  tokenCount: number;
}

/** A chunk the full-text engine matched, with what the ranking needs. */
export interface CandidateChunk {
  id: number;
  searchText: string;
  tokenCount: number;
}

/** A chunk as a search answers it. */
export interface PassageRow {
  id: number;
  documentId: string;
  title: string;
  heading: string | null;
  content: string;
}

/** Chunks the full-text engine hands to the ranking, at most (its own best first). */
export const CANDIDATE_LIMIT = 60;
const INSERT_BATCH = 200;
const TERM_BATCH = 300;

/**
 * The dialect-specific half of knowledge search (raw SQL on tables without entities): chunks and their full-text
 * index (SQLite FTS5 kept in step by triggers; InnoDB FULLTEXT), and the per-base document frequency of each term.
 * Writes take the caller's transaction; candidate lookups use prepared statements (HotSql).
 */
@Injectable()
export class KnowledgeChunkIndex {
  private readonly mysql: boolean;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly hot: HotSql,
  ) {
    this.mysql = dataSource.options.type !== 'better-sqlite3';
  }

  async addChunks(
    m: EntityManager,
    knowledgeBaseId: string,
    documentId: string,
    chunks: IndexedChunk[],
  ): Promise<void> {
    for (let i = 0; i < chunks.length; i += INSERT_BATCH) {
      const batch = chunks.slice(i, i + INSERT_BATCH);
      await m.query(
        `INSERT INTO knowledge_chunk (knowledge_base_id, document_id, seq, heading, content, search_text, token_count) VALUES ${batch.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        batch.flatMap((c) => [knowledgeBaseId, documentId, c.seq, c.heading, c.content, c.searchText, c.tokenCount]),
      );
    }
  }

  /** Adds `delta` to each term's document frequency (terms sorted: concurrent writers lock rows in one order). */
  async addTerms(m: EntityManager, knowledgeBaseId: string, delta: Map<string, number>): Promise<void> {
    const terms = [...delta.keys()].sort();
    const upsert = this.mysql
      ? 'ON DUPLICATE KEY UPDATE df = df + VALUES(df)'
      : 'ON CONFLICT (knowledge_base_id, term) DO UPDATE SET df = df + excluded.df';
    for (let i = 0; i < terms.length; i += TERM_BATCH) {
      const batch = terms.slice(i, i + TERM_BATCH);
      await m.query(
        `INSERT INTO knowledge_term (knowledge_base_id, term, df) VALUES ${batch.map(() => '(?, ?, ?)').join(', ')} ${upsert}`,
        batch.flatMap((t) => [knowledgeBaseId, t, delta.get(t)]),
      );
    }
  }

  /** Subtracts each term's count from its document frequency; terms no chunk holds any more are removed. */
  async removeTerms(m: EntityManager, knowledgeBaseId: string, delta: Map<string, number>): Promise<void> {
    const terms = [...delta.keys()].sort();
    for (let i = 0; i < terms.length; i += TERM_BATCH) {
      const batch = terms.slice(i, i + TERM_BATCH);
      await m.query(
        `UPDATE knowledge_term SET df = df - CASE term ${batch.map(() => 'WHEN ? THEN ?').join(' ')} ELSE 0 END WHERE knowledge_base_id = ? AND term IN (${batch.map(() => '?').join(', ')})`,
        [...batch.flatMap((t) => [t, delta.get(t)]), knowledgeBaseId, ...batch],
      );
    }
    await m.query('DELETE FROM knowledge_term WHERE knowledge_base_id = ? AND df <= 0', [knowledgeBaseId]);
  }

  /** The search texts of a document's chunks (what its removal must take out of the term statistics). */
  async searchTextsOf(
    m: EntityManager,
    documentId: string,
  ): Promise<Array<{ searchText: string; tokenCount: number }>> {
    const rows: Array<{ search_text: string; token_count: number | string }> = await m.query(
      'SELECT search_text, token_count FROM knowledge_chunk WHERE document_id = ?',
      [documentId],
    );
    return rows.map((r) => ({ searchText: r.search_text, tokenCount: Number(r.token_count) }));
  }

  async chunksOf(documentId: string): Promise<Array<{ seq: number; heading: string | null; content: string }>> {
    const rows = await this.hot.all<{ seq: number; heading: string | null; content: string }>(
      'SELECT seq, heading, content FROM knowledge_chunk WHERE document_id = ? ORDER BY seq',
      [documentId],
    );
    return rows.map((r) => ({ seq: Number(r.seq), heading: r.heading, content: r.content }));
  }

  async removeDocument(m: EntityManager, documentId: string): Promise<void> {
    await m.query('DELETE FROM knowledge_chunk WHERE document_id = ?', [documentId]);
  }

  /**
   * Removes up to `limit` passages of a base (any of them) and says how many: a large base's passages go in bounded
   * transactions, since one statement for all of them held SQLite, and with it the event loop, for seconds (its FTS5
   * trigger reads every removed row; 50,000 passages: 6 s).
   */
  async removeBasePassages(m: EntityManager, knowledgeBaseId: string, limit: number): Promise<number> {
    const rows: Array<{ id: number | string }> = await m.query(
      `SELECT id FROM knowledge_chunk WHERE knowledge_base_id = ? LIMIT ${Math.trunc(limit)}`,
      [knowledgeBaseId],
    );
    if (rows.length === 0) return 0;
    await m.query(
      `DELETE FROM knowledge_chunk WHERE id IN (${rows.map(() => '?').join(', ')})`,
      rows.map((r) => Number(r.id)),
    );
    return rows.length;
  }

  async removeBase(m: EntityManager, knowledgeBaseId: string): Promise<void> {
    await m.query('DELETE FROM knowledge_chunk WHERE knowledge_base_id = ?', [knowledgeBaseId]);
    await m.query('DELETE FROM knowledge_term WHERE knowledge_base_id = ?', [knowledgeBaseId]);
  }

  /**
   * Chunks of the base that hold any of `terms`, at most {@link CANDIDATE_LIMIT}, picked by the engine's own ranking
   * (FTS5 bm25; InnoDB relevance) over the terms as the base tagged them, so only the base's own postings are read.
   * One statement: the engine's pick in a derived table, its rows then read by primary key.
   */
  async candidates(knowledgeBaseId: string, terms: string[]): Promise<CandidateChunk[]> {
    if (terms.length === 0) return [];
    const tag = baseTag(knowledgeBaseId);
    const [picked, params] = this.mysql
      ? mysqlPick(tag, terms)
      : [
          'SELECT rowid AS id FROM knowledge_chunk_fts WHERE knowledge_chunk_fts MATCH ? ' +
            `ORDER BY rank LIMIT ${CANDIDATE_LIMIT}`,
          [terms.map((t) => `"${tag}${t}"`).join(' OR ')],
        ];
    const rows = await this.hot.all<CandidateChunk & { knowledgeBaseId: string } & Record<string, unknown>>(
      'SELECT c.id AS id, c.knowledge_base_id AS knowledgeBaseId, c.search_text AS searchText, c.token_count AS tokenCount ' +
        `FROM (${picked}) p JOIN knowledge_chunk c ON c.id = p.id`,
      params,
    );
    return ofBase(rows, knowledgeBaseId).map((r) => ({
      id: Number(r.id),
      searchText: r.searchText,
      tokenCount: Number(r.tokenCount),
    }));
  }

  /** The passages of the chunks (of the base) with these ids, in no particular order. */
  async passages(knowledgeBaseId: string, ids: number[]): Promise<PassageRow[]> {
    if (ids.length === 0) return [];
    const rows = await this.hot.all<PassageRow & { knowledgeBaseId: string } & Record<string, unknown>>(
      'SELECT c.id AS id, c.knowledge_base_id AS knowledgeBaseId, c.document_id AS documentId, d.title AS title, ' +
        'c.heading AS heading, c.content AS content FROM knowledge_chunk c JOIN knowledge_document d ON d.id = c.document_id ' +
        `WHERE c.id IN (${ids.map(() => '?').join(', ')})`,
      ids,
    );
    return ofBase(rows, knowledgeBaseId).map((r) => ({
      id: Number(r.id),
      documentId: r.documentId,
      title: r.title,
      heading: r.heading,
      content: r.content,
    }));
  }

  /** How many chunks of the base hold each term. */
  async documentFrequencies(knowledgeBaseId: string, terms: string[]): Promise<Map<string, number>> {
    if (terms.length === 0) return new Map();
    const rows = await this.hot.all<{ term: string; df: number }>(
      `SELECT term, df FROM knowledge_term WHERE knowledge_base_id = ? AND term IN (${terms.map(() => '?').join(', ')})`,
      [knowledgeBaseId, ...terms],
    );
    return new Map(rows.map((r) => [r.term, Number(r.df)]));
  }
}

/**
 * A character MariaDB's full-text parser reads as no letter, although it is one: every character outside the BMP (rare
 * Chinese such as 𩸽, 𠮷; emoji), and the BMP letters and digits its character table (Unicode 5.0) does not know, found
 * by indexing each character the tokenizer can leave in a term on MariaDB 10.11: CJK ideographs added since
 * (U+4DB6-U+4DBF, U+9FA6-U+9FFF, such as 鿏 and 鿫 of the chemical elements), Malayalam chillu letters, Cherokee, Vai,
 * Javanese, Ol Chiki, Meetei Mayek and other scripts added since, and single letters added to older scripts.
 */
const NOT_A_LETTER_ON_MARIADB = new RegExp(
  '[\\u{10000}-\\u{10ffff}' +
    '\\u02ec\\u0371-\\u0377\\u0515-\\u052f\\u0560\\u0588\\u05ef\\u0620\\u063b-\\u063f\\u076e-\\u077f\\u0800-\\u08c9' +
    '\\u0971-\\u097a\\u0980\\u09fc\\u0af9\\u0bd0\\u0c34\\u0c3d-\\u0c5d\\u0c80\\u0cdc-\\u0cdd\\u0cf1-\\u0d04\\u0d29' +
    '\\u0d3a-\\u0d5f\\u0d7a-\\u0d7f\\u0de6-\\u0def\\u0e86\\u0e89\\u0e8c\\u0e8e-\\u0e93\\u0e98\\u0ea0\\u0ea8-\\u0ea9' +
    '\\u0eac\\u0ede-\\u0edf\\u0f6b-\\u0f6c\\u0f8c\\u1022\\u1028\\u103f\\u105a-\\u1099\\u10fd-\\u10ff\\u115a-\\u115e' +
    '\\u11a3-\\u11a7\\u11fa-\\u11ff\\u13f8-\\u13fd\\u1677-\\u167f\\u16f1-\\u16f8\\u170d\\u171f\\u1878\\u18aa-\\u18f5' +
    '\\u191d-\\u191e\\u19aa-\\u19ab\\u19da\\u1a20-\\u1aa7\\u1b4c\\u1b83-\\u1cfa\\u1e9c-\\u1eff\\u2185-\\u2188\\u2c5f' +
    '\\u2c71-\\u2c73\\u2c78-\\u2c7b\\u2cec-\\u2cf3\\u2d27-\\u2d2d\\u2d66-\\u2d67\\u2e2f\\u312d-\\u312f\\u31b8-\\u31bf' +
    '\\u4db6-\\u4dbf\\u9fa6-\\u9fba\\u9fbc-\\u9fff\\ua4d0-\\ua6ef\\ua71b-\\ua7ff\\ua882-\\uabf9\\ud7b0-\\ud7fb]',
  'u',
);

/**
 * The ids InnoDB picks, as SQL and its parameters. MariaDB's full-text parser reads some letters as no letter (see
 * {@link NOT_A_LETTER_ON_MARIADB}): it indexes `<tag>𩸽__` as the bare tag, so looking such a term up matched every
 * chunk of the base with any such word, and more than {@link CANDIDATE_LIMIT} of them crowded out the one that holds
 * it. Those terms are looked up as whole words in the search texts of the chunks the index finds for the part of them it
 * holds (their tagged beginning up to that character); the others through the FULLTEXT index alone.
 */
function mysqlPick(tag: string, terms: string[]): [string, unknown[]] {
  const words = terms.filter((t) => !NOT_A_LETTER_ON_MARIADB.test(t)).map((t) => tag + t);
  const rare = terms.filter((t) => NOT_A_LETTER_ON_MARIADB.test(t));
  const picks: string[] = [];
  const params: unknown[] = [];
  if (words.length > 0) {
    picks.push(
      'SELECT id FROM knowledge_chunk WHERE MATCH (search_text) AGAINST (?) ' +
        `ORDER BY MATCH (search_text) AGAINST (?) DESC LIMIT ${CANDIDATE_LIMIT}`,
    );
    params.push(words.join(' '), words.join(' '));
  }
  if (rare.length > 0) {
    const likeWord = "CONCAT(' ', search_text, ' ') LIKE ? ESCAPE '!'";
    picks.push(
      `SELECT id FROM knowledge_chunk WHERE MATCH (search_text) AGAINST (?) AND (${rare.map(() => likeWord).join(' OR ')}) ` +
        `LIMIT ${CANDIDATE_LIMIT}`,
    );
    // The whole word too: a server whose table knows that letter (a newer MySQL) indexes the word whole.
    params.push(rare.flatMap((t) => [tag + t.slice(0, NOT_A_LETTER_ON_MARIADB.exec(t)!.index), tag + t]).join(' '));
    params.push(...rare.map((t) => `% ${likeEscaped(tag + t)} %`));
  }
  return [picks.map((sql, i) => `SELECT id FROM (${sql}) p${i}`).join(' UNION '), params];
}

/** A search-text word as a LIKE pattern of itself (`_` is a wildcard there; `!` the escape character). */
function likeEscaped(word: string): string {
  return word.replace(/[!%_]/g, (c) => `!${c}`);
}

/**
 * The rows of the base. Chunks are read by primary key (a condition on knowledge_base_id made MariaDB range-scan
 * the base's index instead, several times slower), so the base is checked here: a chunk of another base (whose tag
 * is the same) is never answered.
 */
function ofBase<T extends { knowledgeBaseId: string }>(rows: T[], knowledgeBaseId: string): T[] {
  return rows.filter((r) => r.knowledgeBaseId === knowledgeBaseId);
}
