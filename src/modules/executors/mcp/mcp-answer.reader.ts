import type { IncomingHttpHeaders } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import type { ResponseSink } from '../outbound/dispatch-post';
import { TOOL_MAX_RESPONSE_BYTES } from '../tool-executor';
import { McpAnsweredError, McpExchangeError } from './mcp-exchange.errors';
import { SseEventReader } from './sse-event.reader';

/** A JSON-RPC message as it comes off the wire. */
export interface JsonRpcMessage {
  jsonrpc?: string;
  id?: string | number;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

const JSON_TYPE = 'application/json';
/** Characters of an error answer's body kept in the error (servers explain themselves there, briefly). */
const ERROR_BODY_CHARS = 1000;
const SSE_TYPE = 'text/event-stream';

/**
 * Reads the HTTP answer to one JSON-RPC request on a streamable-HTTP session, as it arrives: a JSON body
 * carrying the response, or an SSE stream carrying it among other messages (handed to `onOther`, in order).
 * Settles once: with the response's `result`, with McpAnsweredError (an McpError) for a JSON-RPC error answer, else with an
 * McpExchangeError: `http-status` for a non-2xx answer, `answer-lost` for a stream that ended without the
 * response, `too-large` past {@link TOOL_MAX_RESPONSE_BYTES}, `malformed` for anything else. After the response, the rest of the stream is read and dropped so the
 * connection stays reusable.
 */
export class McpAnswerReader implements ResponseSink {
  private mode: 'json' | 'sse' | 'http-error' | 'unexpected' = 'unexpected';
  private status = 0;
  private contentType = '';
  private readonly chunks: Buffer[] = [];
  private sse?: { decoder: StringDecoder; events: SseEventReader };
  private settled = false;
  private received = 0;
  /** Gave up before the body ended (too large, an event that is not JSON): the caller should stop the exchange. */
  abandoned = false;
  /** The HTTP answer is over (its body ended, or the exchange failed): nothing more will arrive. */
  ended = false;

  constructor(
    private readonly id: string,
    private readonly resolve: (result: unknown) => void,
    private readonly reject: (err: unknown) => void,
    private readonly onOther: (message: JsonRpcMessage) => void,
  ) {}

  onHead(status: number, headers: IncomingHttpHeaders): void {
    this.status = status;
    const header = headers['content-type'];
    this.contentType = String(Array.isArray(header) ? header[0] : (header ?? ''));
    const type = this.contentType.split(';', 1)[0].trim().toLowerCase();
    if (status < 200 || status >= 300) this.mode = 'http-error';
    else if (type === SSE_TYPE) {
      this.mode = 'sse';
      this.sse = { decoder: new StringDecoder('utf8'), events: new SseEventReader() };
    } else if (type === JSON_TYPE) this.mode = 'json';
  }

  onData(chunk: Buffer): void {
    if (this.settled) return;
    this.received += chunk.length;
    if (this.received > TOOL_MAX_RESPONSE_BYTES) {
      this.abandoned = true;
      return this.fail(
        new McpExchangeError(
          'too-large',
          `MCP server sent more than ${TOOL_MAX_RESPONSE_BYTES} bytes without finishing its answer; ask the tool for a smaller result.`,
        ),
      );
    }
    if (this.mode !== 'sse') {
      this.chunks.push(chunk);
      return;
    }
    for (const event of this.sse!.events.push(this.sse!.decoder.write(chunk))) {
      // Other event types are not JSON-RPC; an empty data field primes resumption (spec 2025-11-25).
      if ((event.event !== undefined && event.event !== 'message') || event.data === '') continue;
      let parsed: JsonRpcMessage | JsonRpcMessage[];
      try {
        parsed = JSON.parse(event.data) as JsonRpcMessage | JsonRpcMessage[];
      } catch {
        this.abandoned = true;
        return this.fail(
          new McpExchangeError(
            'malformed',
            `MCP server sent an SSE event that is not JSON: ${event.data.slice(0, 200)}`,
          ),
        );
      }
      for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
        if (this.isAnswer(message)) return this.answer(message);
        this.onOther(message);
      }
    }
  }

  onEnd(): void {
    this.ended = true;
    if (this.settled) return;
    const text = () => (this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks)).toString('utf8');
    switch (this.mode) {
      case 'http-error':
        return this.fail(new McpExchangeError('http-status', text().slice(0, ERROR_BODY_CHARS), this.status));
      case 'sse':
        return this.fail(
          new McpExchangeError('answer-lost', `the answer stream of request ${this.id} ended without the answer`),
        );
      case 'unexpected':
        return this.fail(
          new McpExchangeError(
            'malformed',
            `MCP server answered ${this.status} with content-type "${this.contentType}", expected JSON or an SSE stream`,
          ),
        );
      case 'json': {
        let messages: JsonRpcMessage | JsonRpcMessage[];
        try {
          messages = JSON.parse(text()) as JsonRpcMessage | JsonRpcMessage[];
        } catch (err) {
          return this.fail(
            new McpExchangeError('malformed', `MCP server's JSON answer does not parse: ${(err as Error).message}`),
          );
        }
        const answer = (Array.isArray(messages) ? messages : [messages]).find((m) => this.isAnswer(m));
        if (!answer) {
          return this.fail(
            new McpExchangeError('malformed', `MCP server's JSON answer carries no response to request ${this.id}`),
          );
        }
        return this.answer(answer);
      }
    }
  }

  onError(err: Error): void {
    this.ended = true;
    this.fail(err);
  }

  private isAnswer(message: JsonRpcMessage): boolean {
    return message.id === this.id && message.method === undefined;
  }

  private answer(message: JsonRpcMessage): void {
    if (message.error)
      return this.fail(new McpAnsweredError(message.error.code, message.error.message, message.error.data));
    this.settled = true;
    this.resolve(message.result);
  }

  private fail(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(err);
  }
}
