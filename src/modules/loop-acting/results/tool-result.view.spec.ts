import { inlineResult, pageResult, pageWithin } from './tool-result.view';

describe('inlineResult', () => {
  it('returns short content whole', () => {
    expect(inlineResult('abc', 10, 'c1')).toEqual({ content: 'abc', totalChars: 3, truncated: false });
  });
  it('cuts long content and says how to page the rest', () => {
    const r = inlineResult('x'.repeat(25), 10, 'c1');
    expect(r.truncated).toBe(true);
    expect(r.totalChars).toBe(25);
    expect(r.content.startsWith('x'.repeat(10) + '\n\n[truncated')).toBe(true);
    expect(r.content).toContain('READ_TOOL_RESULT');
    expect(r.content).toContain('"offset":10');
  });
  it('gives the arguments to page on as JSON the model can copy, whatever the toolCallId holds', () => {
    // A runtime's toolCallId may hold any printable ASCII character, quotes and backslashes included.
    const id = 'c"1\\x';
    const r = inlineResult('x'.repeat(25), 10, id);
    const args = /READ_TOOL_RESULT with (\{.*\}) to read more/.exec(r.content)?.[1];
    expect(JSON.parse(args ?? 'null')).toEqual({ toolCallId: id, offset: 10 });
  });
});

describe('pageResult', () => {
  it('pages through the whole text without gaps', () => {
    const text = 'abcdefghij';
    const pages = [pageResult(text, 0, 4), pageResult(text, 4, 4), pageResult(text, 8, 4)];
    expect(pages.map((p) => p.content).join('')).toBe(text);
    expect(pages.map((p) => p.hasMore)).toEqual([true, true, false]);
  });
  it('answers an empty page past the end', () => {
    expect(pageResult('abc', 10, 5)).toEqual({ offset: 10, limit: 5, totalChars: 3, content: '', hasMore: false });
  });
});

describe('paging text with emoji (surrogate pairs)', () => {
  const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
  const text = `ab${'😀'}cd${'😀'.repeat(3)}e`;

  it('never cuts a pair: a page ends before it, and every limit pages through the whole text', () => {
    expect(pageResult(text, 0, 3)).toMatchObject({ offset: 0, content: 'ab', hasMore: true });
    for (let limit = 1; limit <= 6; limit++) {
      const pages: string[] = [];
      for (let offset = 0, hasMore = true; hasMore;) {
        const page = pageResult(text, offset, limit);
        expect(page.content).not.toMatch(lone);
        expect(page.content.length).toBeGreaterThan(0);
        pages.push(page.content);
        offset = page.offset + page.content.length;
        hasMore = page.hasMore;
      }
      expect(pages.join('')).toBe(text);
    }
  });

  it('gives a whole pair for a limit of 1, and starts an offset inside a pair at the pair', () => {
    expect(pageResult(text, 2, 1)).toMatchObject({ offset: 2, content: '😀' });
    expect(pageResult(text, 3, 3)).toMatchObject({ offset: 2, content: '😀c' });
  });

  it('cuts an inline result before a pair and points the hint at where it cut', () => {
    const r = inlineResult(text, 3, 'c1');
    expect(r.content.startsWith('ab\n\n[truncated: showing 2 of')).toBe(true);
    expect(r.content).toContain('"offset":2');
  });
});

describe('pageWithin', () => {
  const page = (content: string) => ({ offset: 0, totalChars: content.length, hasMore: false, content });

  it('cuts the content until the JSON fits, never inside a surrogate pair, and says there is more', () => {
    const around = JSON.stringify({ ...page(''), totalChars: 82, hasMore: true }).length;
    // Room for 41 units: 40 letters and half the emoji.
    const fitted = pageWithin(page(`${'a'.repeat(40)}😀${'b'.repeat(40)}`), around + 41);
    expect(fitted).toEqual({ offset: 0, totalChars: 82, hasMore: true, content: 'a'.repeat(40) });
  });

  it('keeps one whole character when nothing shorter fits, instead of cutting on without end', () => {
    expect(pageWithin(page('😀😀😀'), 10).content).toBe('😀');
  });
});
