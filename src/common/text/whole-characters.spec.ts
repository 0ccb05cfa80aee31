import { LONE_SURROGATE } from './lone-surrogate';
import { firstWholeChars, splitsPair, wholeCharBorder, wholeCharChunks, wholeCharEnd } from './whole-characters';

const EMOJI = '😀'; // two UTF-16 units

describe('whole characters', () => {
  it('tells a cut between the halves of a pair from one beside a lone half', () => {
    expect(splitsPair(`a${EMOJI}b`, 2)).toBe(true);
    expect([0, 1, 3, 4].map((at) => splitsPair(`a${EMOJI}b`, at))).toEqual([false, false, false, false]);
    expect(splitsPair('a\udc00b', 1)).toBe(false); // a lone low half: no pair to keep whole
    expect(splitsPair('a\ud800b', 2)).toBe(false);
  });

  it('moves a border inside a pair before it, and keeps the others', () => {
    expect(wholeCharBorder(`a${EMOJI}b`, 2)).toBe(1);
    expect(wholeCharBorder(`a${EMOJI}b`, 3)).toBe(3);
    expect(firstWholeChars(`ab${EMOJI}`, 3)).toBe('ab');
    expect(firstWholeChars(`ab${EMOJI}`, 4)).toBe(`ab${EMOJI}`);
    expect(firstWholeChars('abc', 9)).toBe('abc');
  });

  it('ends a piece before a pair it would split, or after it when the piece would be empty', () => {
    expect(wholeCharEnd(`a${EMOJI}`, 0, 2)).toBe(1);
    expect(wholeCharEnd(`${EMOJI}a`, 0, 1)).toBe(2);
    expect(wholeCharEnd('abc', 1, 10)).toBe(3);
  });

  it('chunks text that joins back, no chunk holding half a pair, always moving on', () => {
    const text = `${EMOJI}x${EMOJI}${EMOJI}yz${EMOJI}`;
    for (const size of [1, 2, 3, 4, 100]) {
      const chunks = wholeCharChunks(text, size);
      expect(chunks.join('')).toBe(text);
      for (const chunk of chunks) {
        expect(chunk.length).toBeGreaterThan(0);
        expect(chunk.length).toBeLessThanOrEqual(Math.max(size, 2));
        expect(chunk).not.toMatch(LONE_SURROGATE);
      }
    }
    expect(wholeCharChunks('', 5)).toEqual([]);
  });
});
