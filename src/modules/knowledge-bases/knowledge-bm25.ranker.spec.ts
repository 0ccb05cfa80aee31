import { rankBm25 } from './knowledge-bm25.ranker';

const chunk = (id: number, text: string) => ({ id, searchText: text, tokenCount: text.split(' ').length });

describe('rankBm25', () => {
  const stats = (df: Record<string, number>) => ({
    chunkCount: 10,
    tokenCount: 40,
    documentFrequency: new Map(Object.entries(df)),
  });

  it('ranks a chunk with the rarer term above one with the common term', () => {
    const ranked = rankBm25(
      [chunk(1, 'aaa bbb ccc ddd'), chunk(2, 'aaa eee fff ggg')],
      ['bbb', 'eee'],
      stats({ bbb: 9, eee: 1 }),
    );
    expect(ranked.map((r) => r.chunk.id)).toEqual([2, 1]);
    expect(ranked[0].score).toBeGreaterThan(ranked[1].score);
  });

  it('counts every occurrence of a term, neighbours included, and never a longer token that contains it', () => {
    const once = rankBm25([chunk(1, 'xyz qqq rrr sss')], ['xyz'], stats({ xyz: 2 }))[0].score;
    const twice = rankBm25([chunk(1, 'xyz xyz rrr sss')], ['xyz'], stats({ xyz: 2 }))[0].score;
    const inside = rankBm25([chunk(1, 'axyz xyzb rrr sss')], ['xyz'], stats({ xyz: 2 }))[0].score;
    expect(twice).toBeGreaterThan(once);
    expect(inside).toBe(0);
  });

  it("counts a term only as its base's tag writes it", () => {
    const tagged = rankBm25([chunk(1, 'k1_xyz k1_qqq'), chunk(2, 'xyz k2_xyz')], ['xyz'], stats({ xyz: 2 }), 'k1_');
    expect(tagged.map((r) => [r.chunk.id, r.score > 0])).toEqual([
      [1, true],
      [2, false],
    ]);
  });

  it('breaks ties by the chunk stored first', () => {
    const ranked = rankBm25([chunk(7, 'kkk lll'), chunk(3, 'kkk lll')], ['kkk'], stats({ kkk: 2 }));
    expect(ranked.map((r) => r.chunk.id)).toEqual([3, 7]);
  });
});
