import { DataSource } from 'typeorm';
import { HotSql } from '@app/database/hot-sql';
import { KnowledgeChunkIndex } from '@app/modules/knowledge-bases/knowledge-chunk.index';
import { baseTag } from '@app/modules/knowledge-bases/knowledge-text.tokenizer';
import { TagKnowledgeSearchText1764462500000 } from '@migrations/1764462500000-TagKnowledgeSearchText';
import { describeEachDialect, type TestDatabase } from '@test/support/test-database';
import { migratedOverSeed } from '@test/support/migration-fixture';

const MIGRATION = TagKnowledgeSearchText1764462500000;
const BASE_A = '3f1c2a9e-0000-4000-8000-00000000000a';
const BASE_B = '3f1c2a9e-0000-4000-8000-00000000000b';
/** Search texts as stored before: the base's token, then the words. */
const FORMER: Array<[string, string]> = [
  [BASE_A, 'kb_3f1c2a9e00004000800000000000000a refund policy 退款_'],
  [BASE_A, 'kb_3f1c2a9e00004000800000000000000a shipping days'],
  [BASE_B, 'kb_3f1c2a9e00004000800000000000000b refund desk'],
  [BASE_B, 'kb_3f1c2a9e00004000800000000000000b'],
];

describeEachDialect('migration TagKnowledgeSearchText: search texts of chunks stored before', (dialect) => {
  let db: TestDatabase;
  let ds: DataSource | undefined;

  beforeAll(async () => {
    ({ db, ds } = await migratedOverSeed(dialect, MIGRATION, async (old) => {
      for (const [i, [base, text]] of FORMER.entries()) {
        await old.query(
          'INSERT INTO knowledge_chunk (knowledge_base_id, document_id, seq, heading, content, search_text, token_count) VALUES (?, ?, ?, NULL, ?, ?, ?)',
          [base, `doc-${base.slice(-1)}`, i, text, text, text.split(' ').length - 1],
        );
      }
    }));
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  const searchTexts = async () => {
    const rows: Array<{ search_text: string }> = await ds!.query('SELECT search_text FROM knowledge_chunk ORDER BY id');
    return rows.map((r) => r.search_text);
  };

  it("puts each word behind its base's tag, without the former base token", async () => {
    const [a, b] = [baseTag(BASE_A), baseTag(BASE_B)];
    expect(await searchTexts()).toEqual([
      `${a}refund ${a}policy ${a}退款_`,
      `${a}shipping ${a}days`,
      `${b}refund ${b}desk`,
      '',
    ]);
  });

  it("finds the migrated chunks in the full-text index, each base's only in its own searches", async () => {
    const index = new KnowledgeChunkIndex(ds!, new HotSql(ds!));
    const idsOf = async (base: string, terms: string[]) =>
      (await index.candidates(base, terms)).map((c) => c.searchText.split(' ')[0]).sort();
    expect(await idsOf(BASE_A, ['refund'])).toEqual([`${baseTag(BASE_A)}refund`]);
    expect(await idsOf(BASE_A, ['退款_', 'days'])).toEqual([`${baseTag(BASE_A)}refund`, `${baseTag(BASE_A)}shipping`]);
    expect(await idsOf(BASE_B, ['refund', 'policy'])).toEqual([`${baseTag(BASE_B)}refund`]);
  });

  it('rolls back to the former search texts', async () => {
    const runner = ds!.createQueryRunner();
    try {
      await new TagKnowledgeSearchText1764462500000().down(runner);
    } finally {
      await runner.release();
    }
    expect(await searchTexts()).toEqual(FORMER.map(([, text]) => text));
  });
});
