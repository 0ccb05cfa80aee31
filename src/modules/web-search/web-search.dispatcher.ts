import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { isPlatformWebSearch } from '@app/modules/agent-config/visibility/visibility-layers';
import { CallTargetRegistry } from '@app/modules/executors/call-path/call-target.registry';
import type { ToolCallContext, ToolDispatcher } from '@app/modules/executors/call-path/tool-call.types';
import { OutboundHttpAgent } from '@app/modules/executors/outbound/outbound-http.agent';
import { TOOL_MAX_RESPONSE_BYTES, ToolCallError, ToolOutput } from '@app/modules/executors/tool-executor';
import { ToolErrorClass } from '@app/modules/executors/tool-error-class';
import { formatSearchResults, parseSearchResponse } from './web-search.response';
import { readResponseLimited } from '@app/modules/executors/outbound/response-body.reader';
import { classifyNetworkError } from '@app/modules/executors/outbound/network-error.classifier';
import { valuesToHide } from '@app/modules/executors/secrets/tool-header.secrets';
import { urlCredentialValues } from '@app/modules/tool-registry/tool-credential.rules';

/** Results asked for when the model gives no `count`. */
const DEFAULT_COUNT = 5;

/**
 * The platform web-search tool. It runs only inside a session, and re-checks at call time what the
 * visibility pipeline decided: the web-search mode (narrowed for this call) and the tenant capability.
 * The provider is WEB_SEARCH_URL (GET ?q=&count=, JSON {results:[{title,url,snippet}]}), reached through
 * the outbound guard.
 */
@Injectable()
export class WebSearchDispatcher implements ToolDispatcher, OnModuleInit {
  readonly name = 'web-search';
  readonly priority = 200;
  /**
   * WEB_SEARCH_API_KEY and a key in WEB_SEARCH_URL (`?key=...`), as a provider could echo them: every tenant's model
   * reads the results, never the platform's keys.
   */
  private readonly hidden: string[];

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly targets: CallTargetRegistry,
    private readonly http: OutboundHttpAgent,
  ) {
    const keys = [config.webSearch.apiKey, ...urlCredentialValues(config.webSearch.url)];
    this.hidden = valuesToHide(keys.filter((key) => key !== ''));
  }

  onModuleInit(): void {
    this.targets.registerDispatcher(this);
  }

  handles(tool: ToolDescriptor): boolean {
    return isPlatformWebSearch(tool);
  }

  async dispatch(
    _tool: ToolDescriptor,
    args: Record<string, unknown>,
    ctx: ToolCallContext,
    signal: AbortSignal,
  ): Promise<ToolOutput> {
    refuseUnless(ctx.sessionId !== null, 'platform web search runs only inside a session');
    refuseUnless(
      ctx.webSearch !== undefined && ctx.webSearch.mode !== 'DISABLED',
      'web search is DISABLED for this agent',
    );
    refuseUnless(ctx.webSearch?.tenantCapability === true, "the tenant's platform capability webSearch is off");
    refuseUnless(this.config.webSearch.url !== '', 'web search is not configured on this gateway (WEB_SEARCH_URL)');
    const url = new URL(this.config.webSearch.url);
    url.searchParams.set('q', String(args.query));
    // The tool's input schema types count (an integer, 1-10).
    const count = typeof args.count === 'number' ? args.count : DEFAULT_COUNT;
    url.searchParams.set('count', String(count));
    // The platform's search service (WEB_SEARCH_URL), whoever's session asks; its fetch vets the URL.
    const outbound = this.http.scope(null);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.config.webSearch.apiKey) headers.authorization = `Bearer ${this.config.webSearch.apiKey}`;
    let response: Response;
    let body: Buffer | null;
    try {
      response = await outbound.fetch(url, { method: 'GET', headers, signal });
      body = await readResponseLimited(response, TOOL_MAX_RESPONSE_BYTES);
    } catch (err) {
      // A refused connection or a DNS failure never reached the provider; a reset mid-answer did.
      throw (
        classifyNetworkError(err, 'the search provider') ??
        new ToolCallError(
          `the search provider could not be reached: ${(err as Error).message}`,
          ToolErrorClass.CONNECTION_LOST,
          { transient: true, reachedRemote: true },
        )
      );
    }
    if (body === null)
      throw new ToolCallError(
        `the search provider answered more than ${TOOL_MAX_RESPONSE_BYTES} bytes`,
        ToolErrorClass.RESPONSE_TOO_LARGE,
        { transient: false, reachedRemote: true },
      );
    const text = body.toString('utf8');
    if (!response.ok) {
      const transient = response.status === 429 || response.status >= 500;
      throw new ToolCallError(
        transient
          ? `the search provider answered HTTP ${response.status} (busy or down); search again later, or go on without it`
          : `the search provider answered HTTP ${response.status}, refusing the search; go on without it (the platform operator should check WEB_SEARCH_URL and WEB_SEARCH_API_KEY)`,
        transient ? ToolErrorClass.HTTP_RETRYABLE : ToolErrorClass.HTTP_CLIENT_ERROR,
        {
          transient,
          reachedRemote: true,
          httpStatus: response.status,
        },
      );
    }
    // A provider may send more than asked: the model gets `count` at most.
    const results = parseSearchResponse(text, this.hidden).slice(0, count);
    return { content: formatSearchResults(String(args.query), results), structured: { results } };
  }
}

function refuseUnless(condition: boolean, reason: string): void {
  if (!condition) throw new ToolCallError(reason, 'WEB_SEARCH_REFUSED', { transient: false, reachedRemote: false });
}
