import { stripUnsafeText } from '@app/common/safe-text';
import { ToolCallError } from '@app/modules/executors/tool-executor';
import { hideSecretValues } from '@app/modules/executors/secrets/tool-header.secrets';
import { firstWholeChars } from '@app/common/text/whole-characters';

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** Longest title, URL and snippet kept of one result (a provider's page text is no snippet). */
const MAX_TITLE_CHARS = 500;
const MAX_URL_CHARS = 2048;
const MAX_SNIPPET_CHARS = 2000;

/** What a provider answering another shape means: the gateway's setup, which the model cannot change. */
const MISCONFIGURED =
  '; web search is misconfigured (WEB_SEARCH_URL must answer {"results":[{"title","url","snippet"}]}): go on without it';

/**
 * Reads the provider's `{results:[{title,url,snippet}]}`; anything else is a clear, non-retried error. `hidden`: texts
 * (the provider's own credentials) replaced in every field before it is cut, so that no part of one shows.
 */
export function parseSearchResponse(text: string, hidden: readonly string[] = []): SearchResult[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ToolCallError(`the search provider did not answer JSON${MISCONFIGURED}`, 'WEB_SEARCH_BAD_RESPONSE', {
      transient: false,
      reachedRemote: true,
    });
  }
  const results = (body as { results?: unknown })?.results;
  if (!Array.isArray(results)) {
    throw new ToolCallError(
      `the search provider answered without a results list${MISCONFIGURED}`,
      'WEB_SEARCH_BAD_RESPONSE',
      {
        transient: false,
        reachedRemote: true,
      },
    );
  }
  return results
    .filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null)
    .map((r) => ({
      title: firstWholeChars(hideSecretValues(textOf(r.title), hidden), MAX_TITLE_CHARS),
      url: firstWholeChars(hideSecretValues(textOf(r.url), hidden), MAX_URL_CHARS),
      snippet: firstWholeChars(hideSecretValues(textOf(r.snippet), hidden), MAX_SNIPPET_CHARS),
    }));
}

/**
 * A provider's field as text: an object or array is no text (the model would read "[object Object]"). Text from outside
 * is cleaned as an HTTP knowledge base's passages are: controls and bidi characters hide or reorder it.
 */
function textOf(value: unknown): string {
  return typeof value === 'string'
    ? stripUnsafeText(value)
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : '';
}

/** What the model reads: a numbered list, or a plain statement that nothing was found. */
export function formatSearchResults(query: string, results: SearchResult[]): string {
  if (results.length === 0) return `No web results for "${query}".`;
  return results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}\n   ${r.snippet}`).join('\n');
}
