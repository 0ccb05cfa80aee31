import { inlineResult, pageResult } from './tool-result.view';

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
