import { createHash } from 'node:crypto';
import { textWords } from '@app/common/text/text-words';

/**
 * The one tokenizer of knowledge search, used for documents and queries and on both databases alike, so SQLite
 * FTS5 and InnoDB FULLTEXT see exactly the same words. Text is NFKC-normalised, lower-cased and stripped of
 * diacritics; `Intl.Segmenter` splits it into words (Chinese included, which has no spaces); each word is cut at
 * anything that is not a letter or digit; stopwords go (ours: a superset of InnoDB's default list, whose own list
 * is switched off); a token shorter than 3 characters is padded with `_` (InnoDB FULLTEXT ignores tokens shorter
 * than innodb_ft_min_token_size = 3, and most Chinese words are 2 characters); tokens are cut at 32 characters
 * (InnoDB's innodb_ft_max_token_size is 84).
 */
export const MIN_TOKEN_CHARS = 3;
const MAX_TOKEN_CHARS = 32;

// InnoDB's default list (INFORMATION_SCHEMA.INNODB_FT_DEFAULT_STOPWORD) plus common English function words.
const ENGLISH_STOPWORDS = new Set(
  (
    'a about an are as at be by com de en for from how i in is it la of on or that the this to was what when where ' +
    'who will with und www and but if into no not such their then there these they do does did can could should ' +
    'would has have had been being its our your you we he she his her them which while all any each than so very'
  ).split(' '),
);
const CHINESE_STOPWORDS = new Set(
  '的 了 是 在 和 与 及 或 也 就 都 而 着 吗 呢 吧 啊 把 被 让 给 对 从 向 为 以 之 其 这 那 这个 那个 如何 怎么 怎样 什么 哪些 为什么 请问 一个 我 你 他 她 它 我们 你们 可以 需要 要'.split(
    ' ',
  ),
);

const STOPWORDS: ReadonlySet<string> = new Set([...ENGLISH_STOPWORDS, ...CHINESE_STOPWORDS]);

/** The tokens of `text`, in order (duplicates kept: term frequency counts them). */
export function tokenize(text: string): string[] {
  return textWords(text, STOPWORDS).map(indexForm);
}

/** The distinct tokens of a query, in first-seen order. */
export function queryTerms(query: string): string[] {
  return [...new Set(tokenize(query))];
}

/**
 * The prefix every token of a base carries in its search text (`k`, 8 base-36 characters of the SHA-256 of the base
 * id, `_`): the full-text index holds each base's words as words of their own, so a search reads the postings of its
 * own base only, however many other bases share the table (a base-wide token required beside the terms made InnoDB
 * read the whole base's postings on every search). No word token can start with it: past 2 characters a word has
 * no `_`. Two bases with the same tag (a 1 in 2^40 chance a pair) only compete for candidates: rows are still
 * checked for their base.
 */
export function baseTag(knowledgeBaseId: string): string {
  const bits = createHash('sha256').update(knowledgeBaseId).digest().readUIntBE(0, 5);
  return `k${bits.toString(36).padStart(8, '0')}_`;
}

function indexForm(word: string): string {
  const chars = [...word];
  if (chars.length > MAX_TOKEN_CHARS) return chars.slice(0, MAX_TOKEN_CHARS).join('');
  return chars.length < MIN_TOKEN_CHARS ? word + '_'.repeat(MIN_TOKEN_CHARS - chars.length) : word;
}
