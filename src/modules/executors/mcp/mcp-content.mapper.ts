import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { formatByteSize } from '@app/common/text/byte-size';
import type { ToolOutput } from '../tool-executor';

/**
 * Turns an MCP `CallToolResult` into what the model reads. Text items are joined with newlines, in order;
 * binary items are summarized, never inlined (`[image: image/png, 1.2 KB]`); an embedded text resource keeps
 * its text under a `[resource: uri]` line; a resource link reads `[resource link: name <uri>]`.
 * `structuredContent` goes to `structured`, and becomes the content (as JSON) when there is no content item.
 * `isError: true` stays a tool-level error: the call completed, the tool said it failed (not retried).
 */
export function mapCallToolResult(result: CallToolResult): ToolOutput {
  const parts = (result.content ?? []).map(describeBlock);
  let content = parts.join('\n');
  if (content.length === 0 && result.structuredContent !== undefined)
    content = JSON.stringify(result.structuredContent);
  const output: ToolOutput = { content };
  if (result.isError === true) output.isError = true;
  if (result.structuredContent !== undefined) output.structured = result.structuredContent;
  return output;
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[image: ${block.mimeType}, ${sizeOfBase64(block.data)}]`;
    case 'audio':
      return `[audio: ${block.mimeType}, ${sizeOfBase64(block.data)}]`;
    case 'resource': {
      const r = block.resource;
      const type = r.mimeType ? ` (${r.mimeType})` : '';
      if ('text' in r && typeof r.text === 'string') return `[resource: ${r.uri}${type}]\n${r.text}`;
      const blob = 'blob' in r && typeof r.blob === 'string' ? `, ${sizeOfBase64(r.blob)}` : '';
      return `[resource: ${r.uri}${type}${blob}]`;
    }
    case 'resource_link':
      return `[resource link: ${block.name} <${block.uri}>]`;
    default:
      return `[${(block as { type: string }).type} content]`;
  }
}

function sizeOfBase64(data: string): string {
  return formatByteSize(Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0));
}
