import { candidateTerms } from './knowledge-search.service';

describe('candidateTerms', () => {
  const df = (entries: Record<string, number>) => new Map(Object.entries(entries));

  it('looks for every term the base holds while their postings are few, rarest first', () => {
    expect(candidateTerms(['refund', 'card', 'absent'], df({ refund: 40, card: 12 }), 10_000)).toEqual([
      'card',
      'refund',
    ]);
  });

  it('leaves the most common terms out of the lookup once their postings pass the budget, never the rarest', () => {
    const counts = df({ common: 2500, rare: 90, middle: 600 });
    expect(candidateTerms(['common', 'rare', 'middle'], counts, 10_000)).toEqual(['rare', 'middle']);
    expect(candidateTerms(['huge', 'bigger'], df({ huge: 3500, bigger: 4000 }), 10_000)).toEqual(['huge']);
  });

  it('leaves out terms in more than half the chunks, unless the query has no other', () => {
    expect(candidateTerms(['everywhere', 'some'], df({ everywhere: 60, some: 5 }), 100)).toEqual(['some']);
    expect(candidateTerms(['everywhere', 'often'], df({ everywhere: 90, often: 70 }), 100)).toEqual(['often']);
  });
});
