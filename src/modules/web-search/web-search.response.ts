import { ToolCallError } from '@app/modules/executors/tool-executor';

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** Reads the provider's `{results:[{title,url,snippet}]}`; anything else is a clear, non-retried error. */
export function parseSearchResponse(text: string): SearchResult[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ToolCallError('the search provider did not answer JSON', 'WEB_SEARCH_BAD_RESPONSE', {
      transient: false,
      reachedRemote: true,
    });
  }
  const results = (body as { results?: unknown })?.results;
  if (!Array.isArray(results)) {
    throw new ToolCallError('the search provider answered without a results list', 'WEB_SEARCH_BAD_RESPONSE', {
      transient: false,
      reachedRemote: true,
    });
  }
  return results
    .filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null)
    .map((r) => ({ title: textOf(r.title), url: textOf(r.url), snippet: textOf(r.snippet) }));
}

/** A provider's field as text: an object or array is no text (the model would read "[object Object]"). */
function textOf(value: unknown): string {
  return typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : '';
}

/** What the model reads: a numbered list, or a plain statement that nothing was found. */
export function formatSearchResults(query: string, results: SearchResult[]): string {
  if (results.length === 0) return `No web results for "${query}".`;
  return results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}\n   ${r.snippet}`).join('\n');
}
