const SEGMENTER = new Intl.Segmenter('zh', { granularity: 'word' });
const NOT_WORD_CHAR = /[^\p{L}\p{N}]+/u;
const COMBINING_MARKS = /\p{M}+/gu;

/**
 * The words of a text in any language, in order (duplicates kept), for full-text ranking: NFKC-normalised,
 * lower-cased, stripped of diacritics, split by the ICU word segmenter (which cuts Chinese, written without spaces,
 * into words), each word cut again at anything that is not a letter or digit, `stopwords` left out.
 */
export function textWords(text: string, stopwords: ReadonlySet<string>): string[] {
  const normalized = text
    .normalize('NFKC')
    .toLowerCase()
    .normalize('NFD')
    .replace(COMBINING_MARKS, '')
    .normalize('NFC');
  const words: string[] = [];
  for (const segment of SEGMENTER.segment(normalized)) {
    if (!segment.isWordLike) continue;
    for (const part of segment.segment.split(NOT_WORD_CHAR)) if (part !== '' && !stopwords.has(part)) words.push(part);
  }
  return words;
}
