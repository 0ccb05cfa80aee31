/** What the model reads of a result: the whole text, or its head with a hint to page the rest. */
export interface InlineResult {
  content: string;
  totalChars: number;
  truncated: boolean;
}

/** Cuts `content` at `maxInlineChars` and tells the model how to read the rest with READ_TOOL_RESULT. */
export function inlineResult(content: string, maxInlineChars: number, toolCallId: string): InlineResult {
  if (content.length <= maxInlineChars) return { content, totalChars: content.length, truncated: false };
  const hint =
    `\n\n[truncated: showing ${maxInlineChars} of ${content.length} characters. ` +
    `Call READ_TOOL_RESULT with {"toolCallId":"${toolCallId}","offset":${maxInlineChars}} to read more.]`;
  return { content: content.slice(0, maxInlineChars) + hint, totalChars: content.length, truncated: true };
}

export interface ResultPage {
  offset: number;
  limit: number;
  totalChars: number;
  content: string;
  hasMore: boolean;
}

/** One page of a stored result. */
export function pageResult(content: string, offset: number, limit: number): ResultPage {
  const slice = content.slice(offset, offset + limit);
  return { offset, limit, totalChars: content.length, content: slice, hasMore: offset + slice.length < content.length };
}
