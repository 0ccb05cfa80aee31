import { createHash } from 'node:crypto';
import { canonicalJson } from '@app/common/canonical-json';

/** One tool of a `tools/list` answer, as far as the sync reads it. */
export interface ListedMcpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  [key: string]: unknown;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * What `ai_tool.definition_checksum` stores for an MCP tool: sha256 of the parts of its definition the
 * registry copies or derives from (title, description, input schema, annotations). A change of any of them
 * is a new version.
 */
export function mcpToolChecksum(tool: ListedMcpTool): string {
  return sha256(
    canonicalJson({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      annotations: tool.annotations,
    }),
  );
}

/** sha256 of a whole `tools/list` answer, order-independent: the scheduled repair re-syncs when it moves. */
export function mcpToolListHash(tools: readonly ListedMcpTool[]): string {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return sha256(canonicalJson(sorted));
}
