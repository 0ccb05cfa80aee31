import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ToolCallError } from '../tool-executor';
import { ToolErrorClass } from '../tool-error-class';
import { abortedError, classifyNetworkError } from '../outbound/network-error.classifier';
import { McpAnsweredError, McpExchangeError } from './mcp-exchange.errors';

/**
 * The HTTP status a failed request carries: the exchange's and the SDK streamable transport's error types say it, and
 * so does the legacy SSE transport's SseError for its GET stream (the `auto` transport's fallback: a server refusing
 * the credentials answers it 401 too); for a failed POST that transport throws a plain Error, so only its message can.
 */
function httpStatusOf(err: unknown): number | undefined {
  if (err instanceof McpExchangeError) return err.httpStatus;
  if (err instanceof StreamableHTTPError && typeof err.code === 'number' && err.code > 0) return err.code;
  if (err instanceof SseError && typeof err.code === 'number' && err.code > 0) return err.code;
  const m = /^Error POSTing to endpoint \(HTTP (\d{3})\)/.exec((err as Error)?.message ?? '');
  return m ? Number(m[1]) : undefined;
}

/**
 * Whether a request failed because the session is gone and the server never processed it: 404 (the spec's
 * "unknown session"), 400 that names the session (what several servers answer instead), or a client whose
 * transport was already closed. Such a request is safe to send again on a fresh session.
 */
export function isSessionLost(err: unknown): boolean {
  if ((err as Error)?.message === 'Not connected') return true;
  const status = httpStatusOf(err);
  if (status === 404) return true;
  return status === 400 && /session/i.test((err as Error).message);
}

/** Maps a failure while opening the session: `tools/call` was never sent, so never reachedRemote. */
export function classifyMcpConnectError(err: unknown, url: string, signal?: AbortSignal): ToolCallError {
  if (err instanceof ToolCallError) return err.reachedRemote ? notSent(err) : err;
  if (signal?.aborted) return notSent(abortedError(signal, url, err));
  const network = classifyNetworkError(err, url);
  if (network) return network.reachedRemote ? notSent(network) : network;
  const status = httpStatusOf(err);
  const transient = status === undefined || status === 408 || status === 429 || status >= 500;
  const refusedCredentials =
    status === 401 || status === 403
      ? ` (HTTP ${status}: the server refused the credentials; check the headers and secrets of the tool or its MCP service)`
      : '';
  return new ToolCallError(
    `MCP server ${url} could not be connected: ${messageOf(err)}${refusedCredentials}`,
    ToolErrorClass.MCP_CONNECT_FAILED,
    {
      transient,
      reachedRemote: false,
      httpStatus: status,
      cause: err,
    },
  );
}

/** Maps a failure of a request on an open session. */
export function classifyMcpRequestError(err: unknown, url: string, signal?: AbortSignal): ToolCallError {
  if (err instanceof ToolCallError) return err;
  if (signal?.aborted) return abortedError(signal, url, err);
  if (isSessionLost(err)) {
    return new ToolCallError(
      `MCP server ${url} lost the session before the request was processed`,
      ToolErrorClass.MCP_SESSION_LOST,
      {
        transient: true,
        reachedRemote: false,
        cause: err,
      },
    );
  }
  if (err instanceof McpExchangeError && err.failure !== 'http-status') return fromExchangeError(err, url);
  // What the server answered, whatever its code: codes such as -32000 are the server's own, not a lost connection.
  if (err instanceof McpAnsweredError)
    return protocolError(`MCP server ${url} refused the request: ${err.message}`, err);
  if (err instanceof McpError) return fromMcpError(err, url);
  const network = classifyNetworkError(err, url);
  if (network) return network;
  const status = httpStatusOf(err);
  if (status !== undefined) {
    const retryable = status === 408 || status === 429 || status >= 500;
    return new ToolCallError(
      `MCP server ${url} answered HTTP ${status}: ${messageOf(err)}`,
      retryable ? ToolErrorClass.HTTP_RETRYABLE : ToolErrorClass.HTTP_CLIENT_ERROR,
      {
        transient: retryable,
        reachedRemote: true,
        httpStatus: status,
        cause: err,
      },
    );
  }
  return protocolError(`MCP request to ${url} failed: ${messageOf(err)}`, err);
}

function fromMcpError(err: McpError, url: string): ToolCallError {
  switch (err.code as ErrorCode) {
    case ErrorCode.RequestTimeout:
      return timedOut(url, err);
    case ErrorCode.ConnectionClosed:
      return closedBeforeAnswer(url, err);
    default:
      return protocolError(`MCP server ${url} refused the request: ${err.message}`, err);
  }
}

function fromExchangeError(err: McpExchangeError, url: string): ToolCallError {
  switch (err.failure) {
    case 'timeout':
      return timedOut(url, err);
    case 'answer-lost':
    case 'closed':
      return closedBeforeAnswer(url, err);
    case 'too-large':
    case 'malformed':
    case 'http-status':
      return protocolError(`MCP request to ${url} failed: ${err.message}`, err);
  }
}

function timedOut(url: string, cause: Error): ToolCallError {
  return new ToolCallError(`MCP server ${url} did not answer in time: ${cause.message}`, ToolErrorClass.MCP_TIMEOUT, {
    transient: true,
    reachedRemote: true,
    cause,
  });
}

function closedBeforeAnswer(url: string, cause: Error): ToolCallError {
  return new ToolCallError(`MCP session to ${url} closed before the answer arrived`, ToolErrorClass.CONNECTION_LOST, {
    transient: true,
    reachedRemote: true,
    cause,
  });
}

function protocolError(message: string, cause: unknown): ToolCallError {
  return new ToolCallError(message, ToolErrorClass.MCP_PROTOCOL_ERROR, {
    transient: false,
    reachedRemote: true,
    cause,
  });
}

function notSent(err: ToolCallError): ToolCallError {
  return new ToolCallError(err.message, err.errorClass, {
    ...err.options,
    reachedRemote: false,
    cause: err.options.cause ?? err,
  });
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
