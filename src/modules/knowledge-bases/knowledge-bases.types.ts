import type { ValueTransformer } from 'typeorm';

export const KNOWLEDGE_BASE_KINDS = ['INTERNAL', 'HTTP'] as const;
export type KnowledgeBaseKind = (typeof KNOWLEDGE_BASE_KINDS)[number];

export const KNOWLEDGE_MIME_TYPES = ['text/plain', 'text/markdown'] as const;
export type KnowledgeMimeType = (typeof KNOWLEDGE_MIME_TYPES)[number];

/**
 * Knowledge base names: what RAG_SEARCH's `knowledgeBase` argument says. Letters of any script with their marks (the
 * vowel signs and viramas of Hindi, Tamil or Bengali, Thai vowels and tones, Arabic harakat, combining accents), so a
 * word of those scripts is a name; no invisible character (default-ignorable: joiners, variation selectors, fillers),
 * which would make two names look alike. No space at the end: MySQL compares strings ignoring trailing spaces, SQLite
 * does not (`handbook ` would be a second base on one, a 409 on the other).
 */
export const KNOWLEDGE_BASE_NAME_PATTERN =
  /^(?!.*\p{Default_Ignorable_Code_Point})[\p{L}\p{N}](?:[\p{L}\p{M}\p{N}_. -]{0,126}[\p{L}\p{M}\p{N}_.-])?$/u;

/** Results of one search: default and most. */
export const SEARCH_DEFAULT_TOP_K = 5;
export const SEARCH_MAX_TOP_K = 20;

/** Largest document accepted (characters); larger ones are refused with 400, nothing stored. */
export const DOCUMENT_MAX_CHARS = 2_000_000;
/**
 * Most passages one document is cut into (a document of DOCUMENT_MAX_CHARS in full passages makes about 2,400); more are
 * refused with 400, nothing stored. Each passage's index entry repeats the title's words, so a document of tiny sections
 * (`# h\nb\n` over and over: 330,000 of them in 2,000,000 characters) held half a gigabyte and a core for a minute.
 */
export const DOCUMENT_MAX_CHUNKS = 10_000;

/** One passage of a search answer (INTERNAL and HTTP alike). */
export interface KnowledgeSearchHit {
  documentId: string | null;
  title: string;
  content: string;
  score: number;
  /** The heading path of the passage (Markdown `A > B`), null for plain text or an HTTP base that gave none. */
  heading: string | null;
}

/** A BIGINT column read as a JS number (counts stay far below 2^53). */
export const bigintNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null || value === undefined ? value : Number(value)),
};
