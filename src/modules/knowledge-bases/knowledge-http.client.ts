import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG, type GatewayConfig } from '@app/config/gateway-config';
import { stripUnsafeText } from '@app/common/safe-text';
import { OutboundHttpAgent } from '@app/modules/executors/outbound/outbound-http.agent';
import { ToolCallError } from '@app/modules/executors/tool-executor';
import { ToolErrorClass } from '@app/modules/executors/tool-error-class';
import type { KnowledgeSearchHit } from './knowledge-bases.types';
import { readResponseLimited } from '@app/modules/executors/outbound/response-body.reader';
import { firstWholeChars } from '@app/common/text/whole-characters';

/** Longest answer read from a retrieval service, and longest passage kept from it. */
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;
const MAX_PASSAGE_CHARS = 8_000;
/** Longest documentId, title and heading kept from it. */
const MAX_FIELD_CHARS = 512;
/**
 * Asks the retrieval service of an HTTP knowledge base: `POST <url> {query, topK}` →
 * `{results: [{documentId?, title, content, score}]}`, through the guarded outbound scope of its tenant (the address
 * is vetted when the socket opens; loopback and private addresses need OUTBOUND_ALLOW_HOSTS). No secrets are sent.
 * @throws ToolCallError for anything but a well-formed answer (the message says what was wrong).
 */
@Injectable()
export class KnowledgeHttpClient {
  /** A search is cut after this long (KNOWLEDGE_SEARCH_TIMEOUT_MS) when the caller gives no tighter budget. */
  private readonly timeoutMs: number;

  constructor(
    private readonly http: OutboundHttpAgent,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.timeoutMs = config.knowledgeSearchTimeoutMs;
  }

  async search(
    url: string,
    context: { tenantId: string; knowledgeBaseId: string },
    query: string,
    topK: number,
    signal?: AbortSignal,
  ): Promise<KnowledgeSearchHit[]> {
    const target = new URL(url);
    // The tenant's scope: its fetch vets the URL (and, at connect, the address) with the tenants' guard.
    const outbound = this.http.scope(context.tenantId);
    const budget = AbortSignal.timeout(this.timeoutMs);
    let response: Response;
    try {
      response = await outbound.fetch(target, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'x-tenant-id': context.tenantId,
          'x-knowledge-base-id': context.knowledgeBaseId,
        },
        body: JSON.stringify({ query, topK }),
        signal: signal ? AbortSignal.any([signal, budget]) : budget,
      });
    } catch (err) {
      if (err instanceof ToolCallError) throw err;
      if (budget.aborted) throw timedOut(target.host, 'answer', this.timeoutMs);
      throw failure(`the retrieval service ${target.host} could not be reached: ${(err as Error).message}`, true);
    }
    let text: string;
    try {
      text = await readBounded(response);
    } catch (err) {
      // The body stalled past the budget or the connection broke mid-answer: the stream errors, not with a ToolCallError.
      if (err instanceof ToolCallError) throw err;
      if (budget.aborted) throw timedOut(target.host, 'finish its answer', this.timeoutMs);
      throw failure(`the retrieval service ${target.host} broke off its answer: ${(err as Error).message}`, true);
    }
    if (!response.ok) {
      const transient = response.status === 429 || response.status >= 500;
      throw failure(
        `the retrieval service ${target.host} answered HTTP ${response.status}`,
        transient,
        response.status,
      );
    }
    return parseAnswer(text, topK, target.host);
  }
}

async function readBounded(response: Response): Promise<string> {
  const body = await readResponseLimited(response, MAX_ANSWER_BYTES);
  if (body === null)
    throw failure(
      `the retrieval service answered more than ${MAX_ANSWER_BYTES} bytes`,
      false,
      undefined,
      ToolErrorClass.RESPONSE_TOO_LARGE,
    );
  return body.toString('utf8');
}

function parseAnswer(text: string, topK: number, host: string): KnowledgeSearchHit[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw failure(`the retrieval service ${host} did not answer JSON`, false, undefined, BAD_ANSWER);
  }
  const results = (body as { results?: unknown })?.results;
  if (!Array.isArray(results))
    throw failure(`the retrieval service ${host} answered without a results array`, false, undefined, BAD_ANSWER);
  const hits: KnowledgeSearchHit[] = [];
  for (const [i, r] of results.entries()) {
    const item = r as Record<string, unknown>;
    if (typeof item?.title !== 'string' || typeof item.content !== 'string' || typeof item.score !== 'number') {
      throw failure(
        `result ${i} of ${host} needs a string title, a string content and a numeric score`,
        false,
        undefined,
        BAD_ANSWER,
      );
    }
    // Text from outside, cleaned as an INTERNAL base's documents are: controls and bidi characters hide or reorder it.
    hits.push({
      documentId: typeof item.documentId === 'string' ? cleaned(item.documentId, MAX_FIELD_CHARS) : null,
      title: cleaned(item.title, MAX_FIELD_CHARS),
      content: cleaned(item.content, MAX_PASSAGE_CHARS),
      score: Number.isFinite(item.score) ? item.score : 0,
      heading: typeof item.heading === 'string' ? cleaned(item.heading, MAX_FIELD_CHARS) : null,
    });
  }
  return hits.sort((a, b) => b.score - a.score).slice(0, topK);
}

function timedOut(host: string, what: string, timeoutMs: number): ToolCallError {
  return new ToolCallError(
    `the retrieval service ${host} did not ${what} within ${timeoutMs} ms (KNOWLEDGE_SEARCH_TIMEOUT_MS); search again later, or with a smaller topK`,
    ToolErrorClass.TIMEOUT,
    { transient: true, reachedRemote: true },
  );
}

/** Text of the service without control and bidi characters, cut at `max` (a character outside the BMP stays whole). */
function cleaned(text: string, max: number): string {
  return firstWholeChars(stripUnsafeText(text), max);
}

/** The errorClass of an answer that is not `{results: [...]}` as the contract says. */
const BAD_ANSWER = 'KNOWLEDGE_BAD_ANSWER';

function failure(message: string, transient: boolean, httpStatus?: number, errorClass?: string): ToolCallError {
  const cls = errorClass ?? (transient ? ToolErrorClass.HTTP_RETRYABLE : ToolErrorClass.HTTP_CLIENT_ERROR);
  return new ToolCallError(message, cls, { transient, reachedRemote: true, httpStatus });
}
