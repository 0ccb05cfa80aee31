import Ajv from 'ajv';
import { SAFE_LINE_PATTERN, stripUnsafeText } from './safe-text';

describe('SAFE_LINE_PATTERN', () => {
  const valid = new Ajv().compile({ type: 'string', pattern: SAFE_LINE_PATTERN });

  it.each(['u-42', 'José', '用户', 'a b', ''])('accepts %j', (s) => expect(valid(s)).toBe(true));

  it.each([
    '\u0000',
    '\t',
    '\n',
    '\u001b[31m',
    '\u007f',
    '\u0085',
    '\u200b',
    '\u200f',
    '\u2028',
    '\u202a',
    '\u202e',
    '\u2066',
    '\u2069',
    '\ufeff',
  ])('refuses U+%s inside a name', (c) => expect(valid(`a${c}b`)).toBe(false));
});

describe('stripUnsafeText', () => {
  it('removes controls and bidi embeddings, overrides and isolates, keeping tabs, line breaks and joiners', () => {
    expect(stripUnsafeText('a\u0000b\u202ec\u2066d\u0007e\u0085f\n\t\r\ng👨\u200d👩')).toBe(
      'abcdef\n\t\r\ng👨\u200d👩',
    );
  });
});
