import { baseToken, queryTerms, tokenize } from './knowledge-text.tokenizer';

describe('tokenize', () => {
  it('segments Chinese into words and pads the ones shorter than 3 characters', () => {
    expect(tokenize('退款政策')).toEqual(['退款_', '政策_']);
  });

  it('folds case, width and accents, and splits at anything that is not a letter or digit', () => {
    expect(tokenize('Café ＡＰＩ_KEY v2.3')).toEqual(['cafe', 'api', 'key', 'v2_', '3__']);
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

describe('baseToken', () => {
  it('can never equal a word token', () => {
    const token = baseToken('3f1c2a9e-0000-4000-8000-000000000abc');
    expect(token).toBe('kb_3f1c2a9e000040008000000000000abc');
    expect(tokenize(token)).not.toContain(token);
  });
});
