import type { KnowledgeMimeType } from './knowledge-bases.types';
import { wholeCharBorder } from '@app/common/text/whole-characters';

/** One passage of a document: what a search returns, with the heading path it sits under. */
export interface KnowledgeChunk {
  seq: number;
  /** `Install > Linux` for Markdown under headings; null for plain text and text before the first heading. */
  heading: string | null;
  content: string;
}

export interface ChunkingOptions {
  /** Hard bound of a chunk's content, overlap included. */
  maxChars: number;
  /** How much of the previous chunk of the same section starts the next one. */
  overlapChars: number;
}

export const DEFAULT_CHUNKING: ChunkingOptions = { maxChars: 1000, overlapChars: 150 };

interface Section {
  heading: string | null;
  blocks: string[];
}

/** The opening of an ATX heading: up to 3 spaces, 1-6 `#`, then a space or tab (the rest is read by hand, see atxHeading). */
const ATX_HEADING_OPENING = /^ {0,3}(#{1,6})[ \t]/;
/** Characters `.` does not match: a line holding one is no heading (as the earlier single regex read it). */
const LINE_BREAK_CHARACTER = /[\r\n\u2028\u2029]/;
/** A heading path is cut at this many characters (it repeats in every chunk of its section). */
export const MAX_HEADING_CHARS = 500;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const SENTENCE_END = /(?<=[.!?;:])\s+|(?<=[。！？；])/u;

/**
 * Splits a document into bounded, overlapping passages. Markdown is cut along its headings first (each passage
 * carries its heading path), then along paragraphs (blank lines; a fenced code block stays one paragraph); a
 * paragraph longer than a chunk is cut at sentence ends, then at spaces, then anywhere. Consecutive chunks of one
 * section share `overlapChars` of text, so a sentence cut at a border is still found whole in one of them.
 */
export function chunkDocument(
  content: string,
  mimeType: KnowledgeMimeType,
  options: ChunkingOptions = DEFAULT_CHUNKING,
): KnowledgeChunk[] {
  const sections = mimeType === 'text/markdown' ? markdownSections(content) : [plainSection(content)];
  const chunks: KnowledgeChunk[] = [];
  for (const section of sections) {
    for (const text of packSection(section.blocks, options)) {
      chunks.push({ seq: chunks.length, heading: section.heading, content: text });
    }
  }
  return chunks;
}

function plainSection(content: string): Section {
  return { heading: null, blocks: paragraphs(content.split(/\r?\n/)) };
}

function markdownSections(content: string): Section[] {
  const sections: Section[] = [];
  const path: string[] = [];
  let lines: string[] = [];
  let heading: string | null = null;
  let fence: string | null = null;
  const flush = () => {
    const blocks = paragraphs(lines);
    if (blocks.length > 0) sections.push({ heading, blocks });
    lines = [];
  };
  for (const line of content.split(/\r?\n/)) {
    const fenceMark = FENCE.exec(line)?.[1];
    if (fence !== null) {
      if (fenceMark && fenceMark[0] === fence[0] && fenceMark.length >= fence.length) fence = null;
      lines.push(line);
      continue;
    }
    if (fenceMark) {
      fence = fenceMark;
      lines.push(line);
      continue;
    }
    const match = atxHeading(line);
    if (!match) {
      lines.push(line);
      continue;
    }
    flush();
    const { level, text } = match;
    path.length = Math.min(path.length, level - 1);
    while (path.length < level - 1) path.push('');
    // Each heading cut before the path is joined: spreading a whole long path per heading was quadratic (a heading of
    // 1,000,000 characters above 1,000 subheadings, 5 KB more, held the process for two minutes).
    path.push(firstChars(text, MAX_HEADING_CHARS));
    heading = firstChars(path.filter((p) => p !== '').join(' > '), MAX_HEADING_CHARS) || null;
  }
  flush();
  return sections;
}

/**
 * An ATX heading's level and text (its closing `#`s and blanks cut), or null. Linear in the line: a single regex
 * with a lazy text group before `[ \t#]*$` backtracked cubically on a line of blanks ended by a stray `\r` (a
 * 3,000-character line took 6 s).
 */
function atxHeading(line: string): { level: number; text: string } | null {
  const opening = ATX_HEADING_OPENING.exec(line);
  if (!opening || LINE_BREAK_CHARACTER.test(line)) return null;
  let end = line.length;
  while (end > opening[0].length && ' \t#'.includes(line[end - 1])) end--;
  return { level: opening[1].length, text: line.slice(opening[0].length, end).trim() };
}

/** The first `max` characters of `text` (code points: a character outside the BMP is never cut), reading no further. */
function firstChars(text: string, max: number): string {
  let end = 0;
  let count = 0;
  for (const char of text) {
    if (count++ === max) break;
    end += char.length;
  }
  return text.slice(0, end);
}

/** Paragraphs: runs of lines between blank lines, except inside a fenced code block. */
function paragraphs(lines: string[]): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let fence: string | null = null;
  for (const line of lines) {
    const fenceMark = FENCE.exec(line)?.[1];
    if (fence === null && fenceMark) fence = fenceMark;
    else if (fence !== null && fenceMark && fenceMark[0] === fence[0] && fenceMark.length >= fence.length) fence = null;
    if (fence === null && line.trim() === '' && !fenceMark) {
      if (current.length > 0) out.push(current.join('\n').trim());
      current = [];
    } else current.push(line);
  }
  if (current.length > 0) out.push(current.join('\n').trim());
  return out.filter((p) => p !== '');
}

function packSection(blocks: string[], { maxChars, overlapChars }: ChunkingOptions): string[] {
  const overlap = Math.min(overlapChars, Math.floor(maxChars / 2));
  const room = maxChars - overlap - 2;
  const pieces = blocks.flatMap((b) => (b.length <= room ? [b] : splitLong(b, room)));
  const chunks: string[] = [];
  let current = '';
  for (const piece of pieces) {
    if (current === '') current = piece;
    else if (current.length + 2 + piece.length <= maxChars) current = `${current}\n\n${piece}`;
    else {
      chunks.push(current);
      const carried = tail(current, overlap);
      current = carried === '' ? piece : `${carried}\n\n${piece}`;
    }
  }
  if (current !== '') chunks.push(current);
  return chunks;
}

/** Cuts a paragraph longer than `limit` at sentence ends, else at spaces, else anywhere. */
function splitLong(text: string, limit: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const sentence of text.split(SENTENCE_END).filter((s) => s !== '')) {
    for (const part of sentence.length <= limit ? [sentence] : hardSplit(sentence, limit)) {
      if (current === '') current = part;
      else if (current.length + 1 + part.length <= limit) current = `${current} ${part}`;
      else {
        out.push(current);
        current = part;
      }
    }
  }
  if (current !== '') out.push(current);
  return out;
}

function hardSplit(text: string, limit: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const space = rest.lastIndexOf(' ', limit);
    const cut = space > limit / 2 ? space : wholeCharBorder(rest, limit);
    out.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest !== '') out.push(rest);
  return out;
}

/** The last `chars` characters of a chunk, started at a word or sentence border when there is one. */
function tail(text: string, chars: number): string {
  if (chars <= 0) return '';
  if (text.length <= chars) return text;
  const start = text.length - chars;
  const slice = text.slice(wholeCharBorder(text, start) === start ? start : start + 1);
  const border = slice.search(/[\s。！？；，]/u);
  return (border >= 0 && border < chars / 2 ? slice.slice(border + 1) : slice).trim();
}
