import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { closeHttpServer, listenOnLoopback } from './loopback-http';

/** A tool call as an OpenAI-compatible model emits it (`arguments` is a JSON string, possibly invalid). */
export interface ScriptedToolCall {
  id: string;
  name: string;
  arguments: string;
  /** The call's `extra_content`, as Gemini's OpenAI-compatible endpoint answers its thought signature there. */
  extraContent?: Record<string, unknown>;
}

/**
 * One scripted answer: a final text, tool calls (with optional text), an assistant `message` sent as it is (what a
 * broken or hostile provider may answer), an HTTP error (optionally with Retry-After; `body` replaces OpenAI's
 * `{error: {message}}`, as other servers answer; `text` answers plain text instead), or no answer at all (`hang`:
 * the request stays open until the server closes). `delayMs` waits before answering, `until` until the test settles
 * it (see {@link heldAnswers}); `finishReason` replaces the choice's `finish_reason` (`stop`, or `tool_calls` with
 * tool calls). `reasoning` is the answer's `reasoning_content`, as DeepSeek's thinking mode answers it.
 */
export type ScriptedAnswer = { delayMs?: number; until?: Promise<unknown>; finishReason?: string } & (
  | { text: string; toolCalls?: undefined; reasoning?: string }
  | { toolCalls: ScriptedToolCall[]; text?: string; reasoning?: string }
  | { message: Record<string, unknown> }
  | { status: number; retryAfter?: string; message?: string; body?: unknown; text?: string }
  | { hang: true }
);

/**
 * A hold for scripted answers (`{ text: 'done', until: held.until }`): they answer once `release` is called, so a
 * test decides how long a model takes instead of a delay that a loaded machine may outrun.
 */
export function heldAnswers(): { until: Promise<void>; release: () => void } {
  let release!: () => void;
  const until = new Promise<void>((resolve) => (release = resolve));
  return { until, release };
}

/** One request the server received. */
export interface RecordedModelRequest {
  model: string;
  headers: IncomingMessage['headers'];
  body: {
    model: string;
    messages: Array<Record<string, any>>;
    tools?: Array<Record<string, any>>;
    [key: string]: unknown;
  };
}

/**
 * A real OpenAI-compatible server on loopback for the agent-loop tests: `POST /v1/chat/completions` answers
 * from a queue of scripted answers per `model` (so suites that share one server keep their scripts apart) and
 * records every request body. An empty queue answers 500 "no scripted answer", which fails the run visibly. Like
 * OpenAI, it refuses (400) a conversation with a tool call whose function name is not `^[a-zA-Z0-9_-]+$`; like vLLM,
 * llama.cpp's server and SGLang (which parse them for the chat template), one with a tool call whose arguments are
 * not the JSON text of an object; like the providers that check message content (Anthropic's and Bedrock's
 * OpenAI-compatible endpoints), one with an assistant message whose text is empty; like DeepSeek's thinking mode, one
 * replaying a tool call it answered with `reasoning_content` without that reasoning; like Gemini's, one replaying a
 * call it answered with `extra_content` (its thought signature) without it.
 */
export class ScriptedModelServer {
  readonly requests: RecordedModelRequest[] = [];
  /** The `reasoning_content` of each answer that called tools with one, by model and tool call id. */
  private readonly reasoningOfCall = new Map<string, string>();
  /** The `extra_content` of each tool call answered with one, by model and tool call id. */
  private readonly extraOfCall = new Map<string, string>();
  /** Called with each request as it arrives (before the answer): lets a test kill a gateway mid-call. */
  onRequest: ((req: RecordedModelRequest) => void) | null = null;
  private readonly queues = new Map<string, ScriptedAnswer[]>();
  private readonly server: Server = createServer((req, res) => void this.handle(req, res));
  private port = 0;

  async start(): Promise<this> {
    this.port = await listenOnLoopback(this.server);
    return this;
  }

  /** The provider's `baseUrl`. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** Appends answers to the queue of `model`. */
  script(model: string, ...answers: ScriptedAnswer[]): void {
    this.queues.set(model, [...(this.queues.get(model) ?? []), ...answers]);
  }

  /** Answers still queued for `model`. */
  pending(model: string): number {
    return this.queues.get(model)?.length ?? 0;
  }

  requestsFor(model: string): RecordedModelRequest[] {
    return this.requests.filter((r) => r.model === model);
  }

  close(): Promise<void> {
    return closeHttpServer(this.server);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      return json(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RecordedModelRequest['body'];
    const recorded: RecordedModelRequest = { model: body.model, headers: req.headers, body };
    this.requests.push(recorded);
    this.onRequest?.(recorded);
    const refused =
      invalidFunctionName(body.messages) ??
      invalidArguments(body.messages) ??
      emptyAssistantText(body.messages) ??
      reasoningLeftOut(body.messages, (id) => this.reasoningOfCall.get(`${body.model}/${id}`)) ??
      signatureLeftOut(body.messages, (id) => this.extraOfCall.get(`${body.model}/${id}`));
    if (refused) return json(res, 400, { error: refused });
    const answer = this.queues.get(body.model)?.shift();
    if (!answer) return json(res, 500, { error: { message: `no scripted answer left for model ${body.model}` } });
    if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
    if (answer.until) await answer.until;
    if ('hang' in answer) return;
    if ('status' in answer) {
      if (answer.retryAfter !== undefined) res.setHeader('retry-after', answer.retryAfter);
      if (answer.text !== undefined) {
        res.writeHead(answer.status, { 'content-type': 'text/plain; charset=utf-8' });
        return void res.end(answer.text);
      }
      const error = { error: { message: answer.message ?? `scripted HTTP ${answer.status}` } };
      return json(res, answer.status, answer.body ?? error);
    }
    if ('message' in answer)
      return json(res, 200, completion(body.model, this.requests.length, answer.message, answer.finishReason));
    const toolCalls = answer.toolCalls?.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
      ...(c.extraContent && { extra_content: c.extraContent }),
    }));
    for (const c of answer.toolCalls ?? [])
      if (c.extraContent) this.extraOfCall.set(`${body.model}/${c.id}`, JSON.stringify(c.extraContent));
    const message = {
      role: 'assistant',
      content: answer.text ?? null,
      ...(answer.reasoning !== undefined && { reasoning_content: answer.reasoning }),
      ...(toolCalls ? { tool_calls: toolCalls } : {}),
    };
    if (answer.reasoning !== undefined)
      for (const c of answer.toolCalls ?? []) this.reasoningOfCall.set(`${body.model}/${c.id}`, answer.reasoning);
    json(res, 200, completion(body.model, this.requests.length, message, answer.finishReason));
  }
}

/**
 * OpenAI's refusal of a conversation whose assistant tool calls carry a function name it does not accept (a name a
 * model made up, sent back as it was): `Invalid 'messages[2].tool_calls[0].function.name': string does not match
 * pattern`.
 */
function invalidFunctionName(messages: Array<Record<string, any>>): Record<string, string> | null {
  for (const [i, m] of messages.entries()) {
    for (const [j, c] of ((m.tool_calls ?? []) as Array<{ function?: { name?: unknown } }>).entries()) {
      const name = c.function?.name;
      if (typeof name === 'string' && /^[a-zA-Z0-9_-]+$/.test(name)) continue;
      const param = `messages[${i}].tool_calls[${j}].function.name`;
      return {
        message: `Invalid '${param}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        type: 'invalid_request_error',
        param,
        code: 'invalid_value',
      };
    }
  }
  return null;
}

/**
 * What vLLM answers (400) for a conversation replaying a tool call whose arguments are no JSON object (a call a token
 * limit cut, a model's broken JSON): it parses them for the chat template, so every later request of that
 * conversation fails alike.
 */
function invalidArguments(messages: Array<Record<string, any>>): Record<string, unknown> | null {
  for (const m of messages) {
    for (const c of (m.tool_calls ?? []) as Array<{ function?: { arguments?: unknown } }>) {
      const text = c.function?.arguments;
      if (typeof text !== 'string' || text === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (err) {
        return { message: (err as Error).message, type: 'BadRequestError', param: null, code: 400 };
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        return {
          message: 'tool call arguments must be a JSON object',
          type: 'BadRequestError',
          param: null,
          code: 400,
        };
    }
  }
  return null;
}

/**
 * The refusal of an assistant message with empty text: "" beside tool calls (OpenAI's form there is null), or no
 * text and no tool calls at all, which the providers that check content refuse ("messages: text content blocks must
 * be non-empty", "all messages must have non-empty content").
 */
function emptyAssistantText(messages: Array<Record<string, any>>): Record<string, unknown> | null {
  for (const [i, m] of messages.entries()) {
    if (m.role !== 'assistant') continue;
    const calls = Array.isArray(m.tool_calls) && m.tool_calls.length > 0;
    if (m.content === '' || (!calls && (m.content === null || m.content === undefined)))
      return {
        message: `messages.${i}: all messages must have non-empty content except for the optional final assistant message`,
        type: 'invalid_request_error',
        param: null,
        code: 400,
      };
  }
  return null;
}

/**
 * DeepSeek's refusal (400) of a conversation replaying an answer that called tools in thinking mode without its
 * `reasoning_content`: "For turns that do perform tool calls, the reasoning_content must be fully passed back to the API
 * in all subsequent requests."
 */
function reasoningLeftOut(
  messages: Array<Record<string, any>>,
  reasoningOfCall: (id: string) => string | undefined,
): Record<string, unknown> | null {
  for (const m of messages) {
    const ids = ((m.tool_calls ?? []) as Array<{ id?: string }>).map((c) => c.id ?? '');
    const reasoning = ids.map(reasoningOfCall).find((r) => r !== undefined);
    if (reasoning !== undefined && m.reasoning_content !== reasoning)
      return {
        message: 'The `reasoning_content` in the thinking mode must be passed back to the API.',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_request_error',
      };
  }
  return null;
}

/**
 * Gemini's refusal (400) of a conversation replaying a function call without the thought signature it answered with
 * it (on its OpenAI-compatible endpoint, the call's `extra_content.google.thought_signature`).
 */
function signatureLeftOut(
  messages: Array<Record<string, any>>,
  extraOfCall: (id: string) => string | undefined,
): Record<string, unknown> | null {
  for (const [i, m] of messages.entries()) {
    for (const c of (m.tool_calls ?? []) as Array<{ id?: string; extra_content?: unknown }>) {
      const extra = extraOfCall(c.id ?? '');
      if (extra !== undefined && JSON.stringify(c.extra_content) !== extra)
        return {
          message: `Function call is missing a thought_signature in functionCall parts, position ${i}.`,
          status: 'INVALID_ARGUMENT',
          code: 400,
        };
    }
  }
  return null;
}

function completion(model: string, n: number, message: Record<string, unknown>, finishReason?: string): unknown {
  return {
    id: `chatcmpl-${n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: finishReason ?? (message.tool_calls ? 'tool_calls' : 'stop') }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
