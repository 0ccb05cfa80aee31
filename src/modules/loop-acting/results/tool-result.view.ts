import { wholeCharBorder, wholeCharEnd } from '@app/common/text/whole-characters';
import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';

/**
 * How much of a result a call of `tool` shows inline (the rest is paged with READ_TOOL_RESULT): the tool's own
 * `result.maxInlineChars`, else `defaultChars` (RESULT_DEFAULT_MAX_INLINE_CHARS).
 */
export function inlineLimitOf(tool: Pick<ToolDescriptor, 'result'> | null, defaultChars: number): number {
  return tool?.result?.maxInlineChars ?? defaultChars;
}
/** What the model reads of a result: the whole text, or its head with a hint to page the rest. */
export interface InlineResult {
  content: string;
  totalChars: number;
  truncated: boolean;
}

/** Cuts `content` at `maxInlineChars` and tells the model how to read the rest with READ_TOOL_RESULT. */
export function inlineResult(content: string, maxInlineChars: number, toolCallId: string): InlineResult {
  if (content.length <= maxInlineChars) return { content, totalChars: content.length, truncated: false };
  const { end } = pageBounds(content, 0, maxInlineChars);
  const hint =
    `\n\n[truncated: showing ${end} of ${content.length} characters. ` +
    `Call READ_TOOL_RESULT with ${readOnArguments(toolCallId, end)} to read more.]`;
  return { content: content.slice(0, end) + hint, totalChars: content.length, truncated: true };
}

/**
 * READ_TOOL_RESULT's arguments to read on from `offset`, as JSON the model can copy: a runtime's toolCallId may hold
 * quotes and backslashes (any printable ASCII), which written in as they are made the hint unparsable.
 */
export function readOnArguments(toolCallId: string, offset: number): string {
  return JSON.stringify({ toolCallId, offset });
}

/**
 * A page of a file, as the JSON a call answers with, within `maxChars` (the call's inline limit): its content cut at
 * a whole character (then `hasMore`) until the JSON fits, so the model reads a whole page and reads on from `offset`
 * plus its content's length. Left to the call's inline cut, the page came back as JSON broken mid-string and the model
 * was told to page the page (JSON writes a newline as two characters: 18,000 characters of short lines passed 20,000).
 */
export function pageWithin<T extends { content: string; hasMore: boolean }>(page: T, maxChars: number): T {
  let fitted = page;
  for (let over = JSON.stringify(page).length - maxChars; over > 0;) {
    const end = wholeCharEnd(fitted.content, 0, Math.max(1, fitted.content.length - over));
    if (end >= fitted.content.length) break; // one character left: nothing shorter to give
    fitted = { ...fitted, content: fitted.content.slice(0, end), hasMore: true };
    over = JSON.stringify(fitted).length - maxChars;
  }
  return fitted;
}

export interface ResultPage {
  offset: number;
  limit: number;
  totalChars: number;
  content: string;
  hasMore: boolean;
}

/** One page of a stored result (or of a file): see {@link pageBounds} for where it starts and ends. */
export function pageResult(content: string, offset: number, limit: number): ResultPage {
  const { start, end } = pageBounds(content, offset, limit);
  const slice = content.slice(start, end);
  return { offset: start, limit, totalChars: content.length, content: slice, hasMore: end < content.length };
}

/**
 * Where the page of at most `limit` UTF-16 units from `offset` starts and ends without cutting a surrogate pair (an
 * emoji, a rare CJK character) in two: a lone half reaches the model as garbage, and a database stores it as U+FFFD.
 * A page ends before a pair it would cut (but holds at least one whole character, so paging always moves on); an
 * offset inside a pair starts at the pair. The next page starts at `end`.
 */
export function pageBounds(text: string, offset: number, limit: number): { start: number; end: number } {
  const start = wholeCharBorder(text, offset);
  return { start, end: wholeCharEnd(text, start, limit) };
}
