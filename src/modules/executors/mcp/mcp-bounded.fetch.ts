import type { OutboundFetch } from '../outbound/outbound-http.agent';
import { TOOL_MAX_RESPONSE_BYTES } from '../tool-executor';
import { McpExchangeError } from './mcp-exchange.errors';

const LF = 0x0a;
const CR = 0x0d;

/**
 * The `fetch` the SDK transports get: every answer bounded as McpAnswerReader bounds the exchange's. A JSON (or any
 * other) body may hold at most `limit` bytes; an SSE stream (the standalone notification stream, legacy SSE, a
 * `tools/list` answer) may run for ever, but no event may pass `limit` bytes before the blank line that ends it.
 * Past the limit the body fails with McpExchangeError `too-large` and the connection is dropped: the SDK buffers an
 * event until it ends, so a server streaming one that never does would otherwise grow the gateway's memory without
 * bound.
 */
export function boundedMcpFetch(fetch: OutboundFetch, limit = TOOL_MAX_RESPONSE_BYTES): OutboundFetch {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (!response.body) return response;
    const type = (response.headers.get('content-type') ?? '').split(';', 1)[0].trim().toLowerCase();
    return new Response(response.body.pipeThrough(sizeGuard(type === 'text/event-stream', limit)), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function sizeGuard(sse: boolean, limit: number): TransformStream<Uint8Array, Uint8Array> {
  /** Bytes since the last event boundary (SSE) or since the start (anything else). */
  let pending = 0;
  /** Line ends in a row (a blank line is two); `afterCr`: the last byte was CR (a LF after it ends no new line). */
  let lineEnds = 0;
  let afterCr = false;
  return new TransformStream({
    transform(chunk, controller) {
      if (!sse) {
        pending += chunk.byteLength;
      } else {
        for (let i = 0; i < chunk.length; i++) {
          const c = chunk[i];
          if (c === LF && afterCr) {
            afterCr = false;
            continue;
          }
          afterCr = c === CR;
          lineEnds = c === LF || c === CR ? lineEnds + 1 : 0;
          pending = lineEnds >= 2 ? 0 : pending + 1;
        }
      }
      if (pending > limit) {
        const what = sse ? 'one event of its stream' : 'an answer';
        controller.error(
          new McpExchangeError('too-large', `MCP server sent more than ${limit} bytes in ${what}; the stream was cut.`),
        );
        return;
      }
      controller.enqueue(chunk);
    },
  });
}
