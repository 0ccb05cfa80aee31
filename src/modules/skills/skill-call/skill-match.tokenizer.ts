const WORDS = new Intl.Segmenter('zh', { granularity: 'word' });
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]{2,}/gu;

/** Words that say nothing about what a skill does (English and Chinese function words). */
const STOP_WORDS = new Set(
  [
    'a an and are as at be by can do for from how i in into is it me my of on or our please that the their them',
    'then this to use used using we when with you your',
    '的 了 和 与 及 或 是 在 把 将 对 给 我 你 我们 请 这个 那个 一个 用 使用 时 中 里 从 帮 帮我 一下',
  ]
    .join(' ')
    .split(' '),
);

/**
 * Terms of a text for ranking skills, in any language: words by the ICU word segmenter (which splits Chinese
 * into words as well as English at spaces and punctuation), lower-cased, without function words; each run of CJK
 * characters also gives its character pairs, so a word the segmenter cut differently in the task and in the
 * description still matches.
 */
export function skillMatchTerms(text: string): string[] {
  const terms: string[] = [];
  for (const s of WORDS.segment(text.normalize('NFKC'))) {
    if (!s.isWordLike) continue;
    const word = s.segment.toLowerCase();
    if (!STOP_WORDS.has(word)) terms.push(word);
  }
  for (const run of text.match(CJK_RUN) ?? [])
    for (let i = 0; i + 1 < run.length; i++) terms.push(`${run[i]}${run[i + 1]}`);
  return terms;
}
