import { DataSource } from 'typeorm';
import { describeEachDialect, MYSQL_UNAVAILABLE_TODO, TEST_DIALECTS } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { CANDIDATE_LIMIT } from '@app/modules/knowledge-bases/knowledge-chunk.index';
import { createKnowledgeBase, searchBase } from './support/knowledge-fixtures';

describeEachDialect('knowledge search: characters outside the BMP (rare Chinese)', (dialect) => {
  const suite = gatewayForSuite(dialect);

  it('finds the one passage with a rare character among more passages with other rare characters than the candidates', async () => {
    const base = await createKnowledgeBase(suite.gw, { name: 'rare-many', tenantId: 'acme' });
    const add = (title: string, content: string) =>
      suite.gw.http
        .post(`/api/v1/admin/knowledge-bases/${base}/documents`)
        .set(suite.gw.admin)
        .send({ title, content, mimeType: 'text/plain' })
        .expect(201);
    // Each with two other rare words: on MariaDB, whose full-text parser reads no letter outside the BMP, those are
    // what a lookup of the one rare word matched too (twice here, once in Hokke).
    const rare = (i: number) => String.fromCodePoint(0x20000 + i);
    for (let i = 0; i < CANDIDATE_LIMIT + 10; i++) await add(`Rare ${i}`, `${rare(2 * i)} and ${rare(2 * i + 1)} note`);
    await add('Hokke', '𩸽 is a fish of the northern seas, grilled whole and served with rice and miso soup');
    const titles = async (query: string) => (await searchBase(suite.gw, base, query, 5)).map((r) => r.title);
    expect(await titles('𩸽')).toEqual(['Hokke']);
    // Beside an ordinary word (looked up through the index), and each rare word finds its own passage only.
    expect(await titles('grilled 𩸽')).toEqual(['Hokke']);
    expect(await titles(rare(1))).toEqual(['Rare 0']);
  });
});

describeEachDialect(
  'knowledge search: letters newer than the character table of MariaDB (later CJK, Malayalam chillu)',
  (dialect) => {
    const suite = gatewayForSuite(dialect);

    it('finds the one passage with such a word among more passages with other such words than the candidates', async () => {
      const base = await createKnowledgeBase(suite.gw, { name: 'newer-letters', tenantId: 'acme' });
      const add = (title: string, content: string) =>
        suite.gw.http
          .post(`/api/v1/admin/knowledge-bases/${base}/documents`)
          .set(suite.gw.admin)
          .send({ title, content, mimeType: 'text/plain' })
          .expect(201);
      // CJK ideographs added in Unicode 5.1 and later (U+9FA6-U+9FFF), which MariaDB's full-text parser reads as no
      // letter: the lookup of one matched every chunk with any of them (twice here, once in Meitnerium).
      const later = [...Array(0x9fff - 0x9fa6 + 1).keys()].map((i) => 0x9fa6 + i).filter((c) => c !== 0x9fcf);
      const ideograph = (i: number) => String.fromCodePoint(later[i % later.length]);
      for (let i = 0; i < CANDIDATE_LIMIT + 10; i++)
        await add(`Filler ${i}`, `${ideograph(2 * i)} and ${ideograph(2 * i + 1)} note`);
      await add('Meitnerium', '鿏 is element 109, named after Lise Meitner');
      await add('Malayalam', 'അവൻ വന്നു');
      const titles = async (query: string) => (await searchBase(suite.gw, base, query, 5)).map((r) => r.title);
      expect(await titles('鿏')).toEqual(['Meitnerium']);
      expect(await titles('element 鿏')).toEqual(['Meitnerium']);
      // A Malayalam word with a chillu letter (U+0D7B), also one MariaDB does not read.
      expect(await titles('അവൻ')).toEqual(['Malayalam']);
    });
  },
);

describe('knowledge search on MariaDB: the lookup of a word the parser does not read goes through the index', () => {
  if (!TEST_DIALECTS.includes('mysql')) return it.todo(MYSQL_UNAVAILABLE_TODO);
  describe('on mysql', () => {
    const suite = gatewayForSuite('mysql');

    it('reads the chunks that hold such a word, not every chunk of the base', async () => {
      const base = await createKnowledgeBase(suite.gw, { name: 'large', tenantId: 'acme' });
      const sections = Array.from({ length: 3000 }, (_, i) => `# Section ${i}\nPlain words number ${i} here.\n`);
      sections.push('# Fish\n𩸽 is grilled.\n');
      await suite.gw.http
        .post(`/api/v1/admin/knowledge-bases/${base}/documents`)
        .set(suite.gw.admin)
        .send({ title: 'Manual', content: sections.join('\n'), mimeType: 'text/markdown' })
        .expect(201);
      const dataSource = suite.gw.app.get(DataSource);
      // Rows read from this suite's own knowledge_chunk (MariaDB's per-table statistics): the server's global count
      // also counts what the suites running beside this one read.
      await dataSource.query('SET GLOBAL userstat = 1');
      const rowsRead = async () => {
        const [row] = await dataSource.query<Array<{ n: string }>>(
          "SELECT ROWS_READ AS n FROM information_schema.TABLE_STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'knowledge_chunk'",
        );
        return Number(row?.n ?? 0);
      };
      const before = await rowsRead();
      expect((await searchBase(suite.gw, base, '𩸽', 5)).map((r) => r.heading)).toEqual(['Fish']);
      // The chunk that holds it and a few rows besides; the scan of the base read all 3,001 chunks.
      const read = (await rowsRead()) - before;
      expect(read).toBeGreaterThan(0);
      expect(read).toBeLessThan(500);
    });
  });
});
