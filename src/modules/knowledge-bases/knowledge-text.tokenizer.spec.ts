import { baseTag, queryTerms, tokenize } from './knowledge-text.tokenizer';

describe('tokenize', () => {
  it('segments Chinese into words and pads the ones shorter than 3 characters', () => {
    expect(tokenize('退款政策')).toEqual(['退款_', '政策_']);
  });

  it('folds case, width and accents, and splits at anything that is not a letter or digit', () => {
    expect(tokenize('Café ＡＰＩ_KEY v2.3')).toEqual(['cafe', 'api', 'key', 'v2_', '3__']);
  });

  it('reads a word with invisible format characters in it (zero-width, soft hyphen, BOM) as the word', () => {
    expect(tokenize('pass\u200Bword re\u00ADfund \uFEFFrotate ke\u2060ys')).toEqual([
      'password',
      'refund',
      'rotate',
      'keys',
    ]);
  });

  it("drops stopwords, InnoDB's default list included, in both languages", () => {
    expect(tokenize('the what 的 如何 about www')).toEqual([]);
  });

  it('cuts very long tokens (InnoDB ignores tokens longer than innodb_ft_max_token_size)', () => {
    expect(tokenize('x'.repeat(100))).toEqual(['x'.repeat(32)]);
  });
});

describe('queryTerms', () => {
  it('keeps each term once, in order', () => {
    expect(queryTerms('refund REFUND policy')).toEqual(['refund', 'policy']);
  });
});

describe('baseTag', () => {
  it("is the same for a base every time, differs between bases and fits any token within InnoDB's 84 characters", () => {
    const tag = baseTag('3f1c2a9e-0000-4000-8000-000000000abc');
    expect(tag).toMatch(/^k[0-9a-z]{8}_$/);
    expect(baseTag('3f1c2a9e-0000-4000-8000-000000000abc')).toBe(tag);
    expect(baseTag('3f1c2a9e-0000-4000-8000-000000000abd')).not.toBe(tag);
    expect([...(tag + tokenize('x'.repeat(100))[0])].length).toBeLessThanOrEqual(84);
  });

  it('never starts a word token: words past 2 characters have no `_`, shorter ones are padded after the word', () => {
    const tag = baseTag('b-1');
    for (const token of tokenize(`${tag} ${tag.slice(0, -1)} k${tag.slice(1)} 数据 ab x`))
      expect(token.startsWith(tag)).toBe(false);
  });
});
