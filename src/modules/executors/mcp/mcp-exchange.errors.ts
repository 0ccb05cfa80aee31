import { McpError } from '@modelcontextprotocol/sdk/types.js';

/**
 * Why a `tools/call` on {@link McpStreamableExchange} failed without a JSON-RPC error answer (those are the
 * SDK's McpError, as the server sent them):
 * - `http-status`: the server answered a non-2xx status (`httpStatus`; the body, cut, in the message);
 * - `answer-lost`: the answer stream ended without the response;
 * - `timeout`: no answer within the request's timeout;
 * - `closed`: the session was closed while the request waited;
 * - `too-large`: the answer passed TOOL_MAX_RESPONSE_BYTES;
 * - `malformed`: not JSON, not an SSE stream, or JSON without the response.
 */
export type McpExchangeFailure = 'http-status' | 'answer-lost' | 'timeout' | 'closed' | 'too-large' | 'malformed';

/** A failure of the lean streamable-HTTP exchange, classified by `failure` (never by its message). */
export class McpExchangeError extends Error {
  constructor(
    readonly failure: McpExchangeFailure,
    message: string,
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'McpExchangeError';
  }
}

/**
 * A JSON-RPC error the server answered a request of the exchange with: what the server said, whatever its code.
 * The SDK makes McpErrors of some of the same codes itself (ConnectionClosed, RequestTimeout) for failures on its
 * side; this type tells the server's answer apart from those.
 */
export class McpAnsweredError extends McpError {
  /** An McpError the SDK client made of a server's JSON-RPC error answer, as what the server said (message kept). */
  static of(err: McpError): McpAnsweredError {
    const answered = new McpAnsweredError(err.code, '', err.data);
    answered.message = err.message;
    return answered;
  }
}
