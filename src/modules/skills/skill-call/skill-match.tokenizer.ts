import { textWords } from '@app/common/text/text-words';

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
 * Terms of a text for ranking skills, in any language ({@link textWords}: Chinese split into words too), without
 * function words; each run of CJK characters also gives its character pairs, so a word the segmenter cut
 * differently in the task and in the description still matches.
 */
export function skillMatchTerms(text: string): string[] {
  const terms = textWords(text, STOP_WORDS);
  for (const run of text.match(CJK_RUN) ?? [])
    for (let i = 0; i + 1 < run.length; i++) terms.push(`${run[i]}${run[i + 1]}`);
  return terms;
}
