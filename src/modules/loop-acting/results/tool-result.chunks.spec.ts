import { textChunks } from './tool-result.chunks';

describe('textChunks', () => {
  it('gives no chunk for empty text and one for text that fits', () => {
    expect(textChunks('', 4)).toEqual([]);
    expect(textChunks('abcd', 4)).toEqual(['abcd']);
  });

  it('cuts every `size` units and joins back to the text', () => {
    expect(textChunks('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
  });

  it('never cuts an emoji (a surrogate pair) in two: that chunk ends one unit early', () => {
    const text = `abc${'😀'.repeat(5)}`;
    const chunks = textChunks(text, 4);
    expect(chunks.join('')).toBe(text);
    expect(chunks[0]).toBe('abc');
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(4);
      expect(chunk).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    }
  });
});
