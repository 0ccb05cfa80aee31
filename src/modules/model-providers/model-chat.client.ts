import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type {
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { ToolSecretsResolver } from '@app/modules/tenant-secrets/tool-secrets.resolver';
import { OutboundHttpAgent } from '@app/modules/executors/outbound/outbound-http.agent';
import type { ModelProviderEntity } from './model-provider.entity';
import { API_KEY_REF_PATTERN } from './model-providers.types';
import { errorBodyShapeFetch } from './error-body-shape.fetch';
import { boundedAnswerFetch, ModelAnswerBoundError } from './bounded-answer.fetch';
import { retryAfterAskedMs, retryAfterBoundFetch } from './retry-after-bound.fetch';
import { refusalUnretriedFetch, refusedBeforeSending } from './refusal-unretried.fetch';
import { untilAborted } from '@app/common/abort-race';
import { endedEarly } from './model-finish-reason';
import { hideSecretValues, valuesToHide } from '@app/modules/executors/secrets/tool-header.secrets';

/** One round's request: the conversation and the tools in OpenAI's format. */
export interface ModelChatRequest {
  messages: ChatCompletionMessageParam[];
  tools: object[];
  toolChoice?: unknown;
}

/** A tool call as the model returned it: `arguments` is its raw JSON string (possibly invalid). */
export interface ModelToolCall {
  id: string;
  name: string;
  arguments: string;
  /**
   * The call's `extra_content` as the provider answered it: Gemini's OpenAI-compatible endpoint puts the call's thought
   * signature there (`{google: {thought_signature}}`) and refuses a later request that replays the call without it.
   */
  extraContent?: Record<string, unknown>;
}

export interface ModelAnswer {
  content: string | null;
  toolCalls: ModelToolCall[];
  /**
   * Why the answer ended, when it did not end as the model meant it: `length` (cut at the token limit: the text, or
   * the arguments of its last tool call, may be incomplete), `content_filter` (the provider withheld part of it), or a
   * reason of the provider's own (at most 64 characters: {@link endedEarly}). Absent for a whole answer.
   */
  finishReason?: string;
  /**
   * The reasoning a model in a thinking mode answered beside its text (`reasoning_content`: DeepSeek, vLLM's and
   * SGLang's reasoning parsers, Kimi): DeepSeek refuses a later request that replays the answer's tool calls without it.
   */
  reasoning?: string;
}

/** The model could not be asked or did not answer (after the client's retries): the run fails with `message`. */
export class ModelCallError extends Error {
  override name = 'ModelCallError';

  /** The context window a provider named when it refused a conversation as too long (OpenAI's and vLLM's text). */
  constructor(
    message: string,
    readonly contextWindowTokens?: number,
  ) {
    super(message);
  }
}

/** "This model's maximum context length is 8192 tokens. However, ...": OpenAI, vLLM and their kin. */
const CONTEXT_LENGTH_REFUSAL = /maximum context length is (\d+) tokens/i;

interface CachedClient {
  version: number;
  apiKey: string;
  client: OpenAI;
  /** The provider refused `max_tokens` for `max_completion_tokens` (OpenAI's reasoning models): sent that way since. */
  maxCompletionTokens: boolean;
}

/** Servers that need no key still get a non-empty Authorization (the client requires one). */
const NO_KEY = 'none';

/**
 * Providers whose client (and key) stays in memory, the least recently asked let go first (built again on its next
 * request): {@link ModelChatClient.forget} reaches only this instance, so a provider changed or deleted on another one
 * kept its client and key here until restart.
 */
export const MAX_CACHED_MODEL_CLIENTS = 1_000;

/**
 * The shortest model key the gateway sends. Every key it sends is scrubbed from error text wherever it occurs, so a key
 * must be long enough that scrubbing it cannot blank ordinary words of a provider's message: one or two characters
 * are refused (the run fails saying so; a server that needs no key is registered without `apiKey`).
 */
const MIN_MODEL_KEY_CHARS = 3;

/**
 * Asks an OpenAI-compatible provider with the official `openai` client: one client per provider version (and
 * key), every request through the outbound guard's undici Agent, a timeout per request (body included) and a size
 * bound per answer ({@link boundedAnswerFetch}: MODEL_MAX_ANSWER_BYTES), and the client's retries (408/409/429/5xx
 * and cut connections, exponential back-off with jitter, Retry-After honoured up to MODEL_RETRY_MAX_AFTER_MS: a longer
 * one fails the request at once, {@link retryAfterBoundFetch}). The key is read from the
 * provider's own secret scope at call time and never logged.
 */
@Injectable()
export class ModelChatClient {
  private readonly clients = new LRUCache<string, CachedClient>({ max: MAX_CACHED_MODEL_CLIENTS });

  constructor(
    private readonly secrets: ToolSecretsResolver,
    private readonly outbound: OutboundHttpAgent,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /**
   * Drops the client kept for a provider that was changed or deleted: the next call builds one from the provider as
   * it is now, and a deleted provider's client and key are not held for the life of the process.
   */
  forget(providerId: string): void {
    this.clients.delete(providerId);
  }

  async complete(provider: ModelProviderEntity, req: ModelChatRequest, signal?: AbortSignal): Promise<ModelAnswer> {
    const cached = await this.clientFor(provider);
    const { client } = cached;
    // The placeholder sent to a server that needs no key is no secret (scrubbing it would blank the word "none").
    const secret = provider.apiKeyRef ? client.apiKey : null;
    const o = provider.options ?? {};
    const limit = (max: number) => (cached.maxCompletionTokens ? { max_completion_tokens: max } : { max_tokens: max });
    // Settled as soon as `signal` aborts (a closed session, a stopping worker): the client waits out a Retry-After
    // (up to MODEL_RETRY_MAX_AFTER_MS) in a sleep no signal cuts, then sends nothing, as its signal has aborted.
    const create = () =>
      untilAborted(signal, (own) =>
        client.chat.completions.create(
          {
            model: provider.model,
            messages: req.messages,
            ...(req.tools.length > 0 && { tools: req.tools as ChatCompletionTool[] }),
            ...(req.tools.length > 0 && req.toolChoice !== undefined && { tool_choice: req.toolChoice as 'auto' }),
            ...(o.temperature !== undefined && { temperature: o.temperature }),
            ...(o.topP !== undefined && { top_p: o.topP }),
            ...(o.maxTokens !== undefined && limit(o.maxTokens)),
          },
          { signal: own },
        ),
      ).catch((err: unknown) => {
        // Aborted by the caller: the client's own error for it, whether the race or the client saw it first.
        throw signal?.aborted ? new APIUserAbortError() : err;
      });
    try {
      let completion: Awaited<ReturnType<typeof create>>;
      try {
        completion = await create();
      } catch (err) {
        if (o.maxTokens === undefined || cached.maxCompletionTokens || !refusesMaxTokens(err)) throw err;
        cached.maxCompletionTokens = true;
        completion = await create();
      }
      const choice = completion.choices?.[0];
      const message = choice?.message;
      if (!message) {
        // OpenRouter answers HTTP 200 with `{error: {code, message}}` when the model behind it fails mid-answer. The
        // key out before the reason is cut, as for an error answer: a key straddling the cut would keep its first half.
        const reason = withoutKey(errorText((completion as { error?: unknown }).error), secret);
        throw new ModelCallError(
          `model provider ${provider.name} answered without a choice${reason ? `: ${reason.slice(0, 300)}` : ''}`,
        );
      }
      const listed: unknown = message.tool_calls ?? [];
      if (!Array.isArray(listed))
        throw new ModelCallError(
          `model provider ${provider.name} answered with tool_calls that are not a list (${typeof listed}); an OpenAI-compatible server answers a list of calls: check the provider's baseUrl and model`,
        );
      // An entry that is no object (null) is a call without a name: the model is told so, as for a made-up name.
      const toolCalls = (listed as Array<Partial<ChatCompletionMessageFunctionToolCall> | null>)
        .map((c) => c ?? {})
        // Without a type it is a function call (servers compatible only in part leave it out): dropping it ended the
        // run COMPLETED with an empty answer, the call never made.
        .filter((c) => (c.type as string | undefined) === undefined || c.type === 'function')
        .map((c) => {
          const extra: unknown = (c as { extra_content?: unknown }).extra_content;
          const extraContent = extra && typeof extra === 'object' && !Array.isArray(extra) ? extra : undefined;
          return {
            id: asText(c.id),
            name: asText(c.function?.name),
            arguments: asText(c.function?.arguments),
            ...(extraContent && { extraContent: extraContent as Record<string, unknown> }),
          };
        });
      const finishReason = endedEarly(asText(choice.finish_reason), toolCalls.length > 0);
      const reasoning = (message as { reasoning_content?: unknown }).reasoning_content;
      // A model that declines answers OpenAI's `refusal` instead of content: the refusal is its answer, not "".
      const refusal = (message as { refusal?: unknown }).refusal;
      const text = contentText(message.content);
      const content = !text && typeof refusal === 'string' && refusal !== '' ? refusal : text;
      return {
        content,
        toolCalls,
        ...(finishReason && { finishReason }),
        ...(typeof reasoning === 'string' && reasoning !== '' && { reasoning }),
      };
    } catch (err) {
      throw scrubbed(this.explain(provider, err, client.maxRetries, secret), secret);
    }
  }

  private async clientFor(provider: ModelProviderEntity): Promise<CachedClient> {
    const apiKey = await this.keyOf(provider);
    const cached = this.clients.get(provider.id);
    if (cached && cached.version === provider.version && cached.apiKey === apiKey) return cached;
    const o = provider.options ?? {};
    const timeoutMs = o.timeoutMs ?? this.config.agentLoop.modelCallTimeoutMs;
    const answers = refusalUnretriedFetch(
      retryAfterBoundFetch(
        errorBodyShapeFetch(
          boundedAnswerFetch(this.outbound.scope(provider.tenantId).fetch, {
            provider: provider.name,
            timeoutMs,
            maxBytes: this.config.agentLoop.modelMaxAnswerBytes,
          }),
        ),
        this.config.agentLoop.modelRetryMaxAfterMs,
      ),
    );
    const client = new OpenAI({
      apiKey,
      baseURL: provider.baseUrl,
      timeout: timeoutMs,
      maxRetries: o.maxRetries ?? this.config.agentLoop.modelMaxRetries,
      // The client passes a URL string and a plain init; the outbound fetch takes exactly those.
      fetch: answers as unknown as typeof fetch,
      logLevel: 'off',
      // Not from the gateway's environment (the client reads OPENAI_ORG_ID and OPENAI_PROJECT_ID when these are
      // left out): they would go as headers to every provider, a tenant's own server included.
      organization: null,
      project: null,
      // The client tells every server the host's operating system, architecture and Node.js version: a tenant's own
      // server learns nothing of the gateway's host.
      defaultHeaders: {
        'X-Stainless-OS': null,
        'X-Stainless-Arch': null,
        'X-Stainless-Runtime': null,
        'X-Stainless-Runtime-Version': null,
      },
    });
    const fresh = { version: provider.version, apiKey, client, maxCompletionTokens: false };
    this.clients.set(provider.id, fresh);
    return fresh;
  }

  /** The key from the provider's own scope: platform-wide → TOOL_SECRETS, a tenant's → its tenant secrets. */
  private async keyOf(provider: ModelProviderEntity): Promise<string> {
    if (!provider.apiKeyRef) return NO_KEY;
    const name = API_KEY_REF_PATTERN.exec(provider.apiKeyRef)?.[1];
    const scope = await this.secrets.scopeOf(provider.tenantId, true);
    const value = name ? scope.get(name) : undefined;
    if (value === undefined)
      throw new ModelCallError(`model provider ${provider.name}: apiKey ${scope.missing(name ?? '?')}`);
    // A platform secret is never named to a tenant (its runs read this), as SecretScope.missing does not name it.
    if (value.length < MIN_MODEL_KEY_CHARS && provider.tenantId === null)
      throw new ModelCallError(
        `model provider ${provider.name}: the platform secret it references is shorter than ${MIN_MODEL_KEY_CHARS} characters, too short for a model key; the platform operator must store the real key in TOOL_SECRETS (or remove apiKey for a server that needs none)`,
      );
    if (value.length < MIN_MODEL_KEY_CHARS)
      throw new ModelCallError(
        `model provider ${provider.name}: the apiKey secret ${name} holds ${value.length} characters; a model key needs at least ${MIN_MODEL_KEY_CHARS} (store the real key, or remove apiKey for a server that needs none)`,
      );
    return value;
  }

  private explain(provider: ModelProviderEntity, err: unknown, retries: number, apiKey: string | null): Error {
    if (err instanceof ModelCallError || err instanceof APIUserAbortError) return err;
    let after = retries > 0 ? ` after ${retries + 1} attempts` : '';
    // From the answer's bounds inside the client's fetch: a deadline before the headers the client reports (and
    // retries) as a lost connection; a body over the bound fails as it is read (not retried). The bound's own words
    // say what happened.
    const bound = err instanceof ModelAnswerBoundError ? err : (err as { cause?: unknown } | null)?.cause;
    if (bound instanceof ModelAnswerBoundError)
      return new ModelCallError(err === bound ? bound.message : `${bound.message}${after}`);
    if (err instanceof APIConnectionTimeoutError)
      return new ModelCallError(`model provider ${provider.name} did not answer in time${after}`);
    if (err instanceof APIError && refusedBeforeSending(err.headers as Headers | undefined))
      return new ModelCallError(`model provider ${provider.name} was not called: ${errorText(err.error)}`);
    if (err instanceof APIError) {
      // The client retries only 408/409/429/5xx and cut connections: name the attempts only then.
      const code = Number(err.status ?? 0);
      const retried = code === 0 || [408, 409, 429].includes(code) || code >= 500;
      // A wait asked for beyond MODEL_RETRY_MAX_AFTER_MS was not made: the request failed at that answer.
      const asked = retryAfterAskedMs(err.headers as Headers | undefined);
      const cap = this.config.agentLoop.modelRetryMaxAfterMs;
      const tooLong = retried && asked !== undefined && asked > cap;
      if (!retried || tooLong) after = '';
      const status = err.status ? `HTTP ${err.status}` : 'no answer';
      // The key out before the detail is cut: cut first, a key straddling the cut would keep its first half.
      const detail = withoutKey(err.status ? errorText(err.error) || plainText(err) : reason(err), apiKey);
      const window = err.status === 400 ? Number(CONTEXT_LENGTH_REFUSAL.exec(detail)?.[1] ?? 0) : 0;
      // A path the server does not serve, or a model it does not have: mostly a baseUrl without its /v1.
      const hint =
        err.status === 404 ? " (check the provider's baseUrl, whose /chat/completions must answer, and its model)" : '';
      const waitHint = tooLong
        ? `; it asked to be retried after ${Math.ceil(asked / 1000)} s, longer than MODEL_RETRY_MAX_AFTER_MS (${cap} ms) lets a run wait, so it was not asked again: send the message again later, or raise MODEL_RETRY_MAX_AFTER_MS`
        : '';
      return new ModelCallError(
        `model provider ${provider.name} failed with ${status}${after}${detail ? `: ${detail.slice(0, 300)}` : ''}${hint}${waitHint}`,
        window > 0 ? window : undefined,
      );
    }
    return new ModelCallError(`model provider ${provider.name} failed: ${reason(err)}`);
  }
}

/**
 * OpenAI's reasoning models (o1, o3, gpt-5...) refuse `max_tokens`: "Unsupported parameter: 'max_tokens' is not
 * supported with this model. Use 'max_completion_tokens' instead." Every other server is sent `max_tokens`, the name
 * OpenAI-compatible servers know.
 */
function refusesMaxTokens(err: unknown): boolean {
  if (!(err instanceof APIError) || err.status !== 400) return false;
  return err.param === 'max_tokens' || errorText(err.error).includes('max_completion_tokens');
}

/** A provider may echo the key in its error text ("Incorrect API key provided: sk-..."): it never reaches the run. */
function scrubbed(err: Error, apiKey: string | null): Error {
  err.message = withoutKey(err.message, apiKey);
  return err;
}

/** `text` without the key in any form it is echoed in (a key of any length: 3 characters are refused before sending). */
function withoutKey(text: string, apiKey: string | null): string {
  if (!apiKey) return text;
  return hideSecretValues(text, valuesToHide([apiKey], 1), '[redacted]');
}

/**
 * A field of a tool call as a string, whatever the server sent: servers compatible only in part answer the arguments
 * as a JSON object, or the id as a number (a type error at the first string method failed the run).
 */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

/**
 * The answer's text. Some servers answer a list of parts (`[{type: "text", text}]`, beside `thinking` parts of
 * reasoning models): the text parts, joined (the list itself failed the run when it was stored).
 */
function contentText(content: unknown): string | null {
  if (!Array.isArray(content)) return content === undefined || content === null ? null : asText(content);
  return content
    .map((part: unknown) => {
      if (typeof part === 'string') return part;
      const { type, text } = (part ?? {}) as { type?: unknown; text?: unknown };
      return type === 'text' && typeof text === 'string' ? text : '';
    })
    .join('');
}

/**
 * The reason an error answer gives: OpenAI's `{error: {message}}`, or the `{error: "..."}` of servers such as Text
 * Generation Inference (read as no reason at all), or a `message` that is no string (a type error that failed the run
 * as the gateway's own fault).
 */
function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  const message = (error as { message?: unknown } | null | undefined)?.message;
  if (message === undefined || message === null) return '';
  return typeof message === 'string' ? message : (JSON.stringify(message) ?? '');
}

/**
 * The text of an error answer that is no JSON (Ollama's "404 page not found", a proxy's page): the client keeps it only
 * in its message, after the status ("404 404 page not found"); it was dropped, and the run failed with a bare status.
 */
function plainText(err: { status: number | undefined; error: unknown; message: string }): string {
  const prefix = `${err.status} `;
  if (err.error !== undefined || !err.message.startsWith(prefix) || err.message === `${prefix}status code (no body)`)
    return '';
  return err.message.slice(prefix.length).trim();
}

function reason(err: unknown): string {
  const cause = (err as { cause?: unknown }).cause;
  const base = err instanceof Error ? err.message : String(err);
  return cause instanceof Error ? `${base} (${cause.message})` : base;
}
