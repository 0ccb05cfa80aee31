import { describeEachDialect, MYSQL_UNAVAILABLE_TODO, TEST_DIALECTS } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { CORPUS, LABELLED_QUERIES } from './support/knowledge-corpus';
import { addCorpus, createKnowledgeBase, searchBase } from './support/knowledge-fixtures';

describeEachDialect('knowledge search ranking', (dialect) => {
  const suite = gatewayForSuite(dialect);
  let kb: string;

  beforeAll(async () => {
    kb = await createKnowledgeBase(suite.gw, { name: 'corpus', tenantId: 'acme' });
    await addCorpus(suite.gw, kb);
  });

  it('finds the labelled document in the top 3 for every query, English and Chinese (recall@3 = 1)', async () => {
    const misses: string[] = [];
    for (const { query, relevant } of LABELLED_QUERIES) {
      const titles = (await searchBase(suite.gw, kb, query, 3)).map((r) => r.title);
      if (!titles.includes(relevant)) misses.push(`${query} → ${titles.join(' | ')} (wanted ${relevant})`);
    }
    const found = LABELLED_QUERIES.length - misses.length;
    console.log(
      `recall@3 (${dialect}): ${found}/${LABELLED_QUERIES.length} = ${(found / LABELLED_QUERIES.length).toFixed(3)}`,
    );
    expect(misses).toEqual([]);
  });

  it('answers one entry per passage, best first, with its heading', async () => {
    const results = await searchBase(suite.gw, kb, 'card refund business days', 5);
    expect(results.length).toBeGreaterThan(1);
    for (let i = 1; i < results.length; i++) expect(results[i - 1].score).toBeGreaterThanOrEqual(results[i].score);
    expect(results[0]).toMatchObject({ title: 'Refund policy', heading: 'Refund policy > Processing time' });
    expect(results[0].content).toContain('five to seven business days');
  });

  it('finds a Chinese passage for a Chinese query and not for an unrelated one', async () => {
    const [top] = await searchBase(suite.gw, kb, '银行转账退款', 1);
    expect(top).toMatchObject({ title: '退款政策', heading: '退款政策 > 到账时间' });
    expect(top.content).toContain('银行转账');
    expect(await searchBase(suite.gw, kb, '火星探测器', 3)).toEqual([]);
  });

  it('answers only passages that hold a query word, also for characters MariaDB does not read as letters', async () => {
    const base = await createKnowledgeBase(suite.gw, { name: 'rare-characters', tenantId: 'acme' });
    for (const [title, content] of [
      ['Yoshinoya', '𠮷野家 menu'],
      ['Hokke', '𩸽 fish'],
      ['Note', '𠀋 note'],
    ]) {
      await suite.gw.http
        .post(`/api/v1/admin/knowledge-bases/${base}/documents`)
        .set(suite.gw.admin)
        .send({ title, content, mimeType: 'text/plain' })
        .expect(201);
    }
    const results = await searchBase(suite.gw, base, '𠮷', 5);
    expect(results.map((r) => r.title)).toEqual(['Yoshinoya']);
    expect(results[0].score).toBeGreaterThan(0);
  });

  it('finds a two-letter word (shorter than the InnoDB minimum token size) and ignores stopwords alike', async () => {
    const [top] = await searchBase(suite.gw, kb, 'id', 1);
    expect(top?.title).toBe('Database backups');
    expect(await searchBase(suite.gw, kb, 'the of and', 3)).toEqual([]);
  });
});

describe('knowledge search gives the same answers on SQLite and MySQL', () => {
  // Needs both databases; without MariaDB it stands as the todo every MySQL variant shows (never silent).
  if (!TEST_DIALECTS.includes('mysql')) return it.todo(MYSQL_UNAVAILABLE_TODO);
  describe('side by side', () => {
    const sqlite = gatewayForSuite('sqlite');
    const mysql = gatewayForSuite('mysql');
    let kbs: { sqlite: string; mysql: string };

    beforeAll(async () => {
      kbs = {
        sqlite: await createKnowledgeBase(sqlite.gw, { name: 'corpus', tenantId: 'acme' }),
        mysql: await createKnowledgeBase(mysql.gw, { name: 'corpus', tenantId: 'acme' }),
      };
      await addCorpus(sqlite.gw, kbs.sqlite);
      await addCorpus(mysql.gw, kbs.mysql);
    });

    it('ranks the same passages in the same order with the same scores for every query', async () => {
      const queries = [...LABELLED_QUERIES.map((q) => q.query), ...CORPUS.map((d) => d.title), 'days', '工作日'];
      for (const query of queries) {
        const strip = (rs: Array<{ title: string; content: string; score: number; heading: string | null }>) =>
          rs.map(({ title, content, score, heading }) => ({ title, content, score, heading }));
        const onSqlite = strip(await searchBase(sqlite.gw, kbs.sqlite, query, 10));
        const onMysql = strip(await searchBase(mysql.gw, kbs.mysql, query, 10));
        expect({ query, results: onMysql }).toEqual({ query, results: onSqlite });
      }
    });
  });
});
