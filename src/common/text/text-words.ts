const SEGMENTER = new Intl.Segmenter('zh', { granularity: 'word' });
const NOT_WORD_CHAR = /[^\p{L}\p{N}]+/u;
const COMBINING_MARKS = /\p{M}+/gu;
/** Invisible format characters (zero-width space and joiners, soft hyphen, word joiner, BOM, direction marks). */
const FORMAT_CHARACTERS = /\p{Cf}+/gu;

/**
 * The words of a text in any language, in order (duplicates kept), for full-text ranking: without invisible format
 * characters, NFKC-normalised, lower-cased, stripped of diacritics, split by the ICU word segmenter (which cuts Chinese,
 * written without spaces, into words), each word cut again at anything that is not a letter or digit, `stopwords` left
 * out.
 */
export function textWords(text: string, stopwords: ReadonlySet<string>): string[] {
  // Format characters go first: inside a word they cut it in two ('pass<U+200B>word' was 'pass' and 'word', so neither
  // a search for 'password' found the document nor a query pasted with a soft hyphen its words).
  const normalized = text
    .replace(FORMAT_CHARACTERS, '')
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
