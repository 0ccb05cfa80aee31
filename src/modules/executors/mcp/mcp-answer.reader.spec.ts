import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { TOOL_MAX_RESPONSE_BYTES } from '../tool-executor';
import { JsonRpcMessage, McpAnswerReader } from './mcp-answer.reader';
import { McpExchangeError } from './mcp-exchange.errors';

const ID = 'gw-1';
const JSON_HEAD = { 'content-type': 'application/json' };
const SSE_HEAD = { 'content-type': 'text/event-stream; charset=utf-8' };

/** A reader for request `gw-1` and what it settled with, and the other messages it passed on. */
function reader() {
  const settled: Array<{ result?: unknown; error?: unknown }> = [];
  const others: JsonRpcMessage[] = [];
  const r = new McpAnswerReader(
    ID,
    (result) => settled.push({ result }),
    (error) => settled.push({ error }),
    (message) => others.push(message),
  );
  return { r, settled, others };
}

const answer = (result: unknown, id: string | number = ID) => JSON.stringify({ jsonrpc: '2.0', id, result });

describe('McpAnswerReader', () => {
  describe('JSON answers', () => {
    it('resolves with the result of the response to its request, however the body is cut', () => {
      const { r, settled } = reader();
      const body = Buffer.from(answer({ content: [{ type: 'text', text: 'héllo' }] }));
      r.onHead(200, JSON_HEAD);
      r.onData(body.subarray(0, 40));
      r.onData(body.subarray(40));
      expect(settled).toEqual([]);
      r.onEnd();
      expect(settled).toEqual([{ result: { content: [{ type: 'text', text: 'héllo' }] } }]);
    });

    it('picks its response out of a batch and ignores responses to other ids', () => {
      const { r, settled } = reader();
      r.onHead(200, JSON_HEAD);
      r.onData(Buffer.from(`[${answer('other', 'gw-2')},${answer('mine')}]`));
      r.onEnd();
      expect(settled).toEqual([{ result: 'mine' }]);
    });

    it('rejects with McpError carrying the code, message and data of a JSON-RPC error answer', () => {
      const { r, settled } = reader();
      r.onHead(200, JSON_HEAD);
      r.onData(
        Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: ID, error: { code: -32602, message: 'bad', data: 1 } })),
      );
      r.onEnd();
      const error = settled[0].error as McpError;
      expect(error).toBeInstanceOf(McpError);
      expect([error.code, error.data]).toEqual([ErrorCode.InvalidParams, 1]);
      expect(error.message).toContain('bad');
    });

    it('rejects as malformed a body that does not parse or carries no response to its request', () => {
      for (const body of ['{"jsonrpc":', answer('x', 'gw-9')]) {
        const { r, settled } = reader();
        r.onHead(200, JSON_HEAD);
        r.onData(Buffer.from(body));
        r.onEnd();
        expect(settled).toHaveLength(1);
        expect((settled[0].error as McpExchangeError).failure).toBe('malformed');
      }
    });
  });

  describe('SSE answers', () => {
    it('passes other messages on in order and resolves with its response, cut anywhere', () => {
      const { r, settled, others } = reader();
      const stream = Buffer.from(
        `: comment\n\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"p":1}}\n\n` +
          `event: message\ndata: {"jsonrpc":"2.0","id":"s-1","method":"ping"}\n\n` +
          `event: other\ndata: not json at all\n\ndata:\n\n` +
          `data: ${answer('done')}\n\n`,
      );
      r.onHead(200, SSE_HEAD);
      for (let i = 0; i < stream.length; i += 7) r.onData(stream.subarray(i, i + 7));
      expect(others.map((m) => m.method)).toEqual(['notifications/progress', 'ping']);
      expect(settled).toEqual([{ result: 'done' }]);
      r.onData(Buffer.from(`data: ${answer('again')}\n\n`));
      r.onEnd();
      expect(settled).toHaveLength(1);
      expect(r.abandoned).toBe(false);
    });

    it('rejects as answer-lost a stream that ends without its response', () => {
      const { r, settled } = reader();
      r.onHead(200, SSE_HEAD);
      r.onData(Buffer.from(`data: ${answer('not mine', 'gw-7')}\n\n`));
      r.onEnd();
      expect((settled[0].error as McpExchangeError).failure).toBe('answer-lost');
    });

    it('gives up on an event that is not JSON, marking the exchange abandoned', () => {
      const { r, settled } = reader();
      r.onHead(200, SSE_HEAD);
      r.onData(Buffer.from('data: {oops\n\n'));
      expect((settled[0].error as McpExchangeError).failure).toBe('malformed');
      expect(r.abandoned).toBe(true);
    });
  });

  it('rejects an error status as http-status with the status and the start of the body', () => {
    const { r, settled } = reader();
    r.onHead(404, { 'content-type': 'text/plain' });
    r.onData(Buffer.from('Session not found'));
    r.onEnd();
    const error = settled[0].error as McpExchangeError;
    expect([error.failure, error.httpStatus, error.message]).toEqual(['http-status', 404, 'Session not found']);
  });

  it('rejects a 2xx answer of another content type as malformed', () => {
    const { r, settled } = reader();
    r.onHead(200, { 'content-type': 'text/html' });
    r.onData(Buffer.from('<html>'));
    r.onEnd();
    const error = settled[0].error as McpExchangeError;
    expect(error.failure).toBe('malformed');
    expect(error.message).toContain('text/html');
  });

  it('gives up past the response size limit, once, and marks the exchange abandoned', () => {
    const { r, settled } = reader();
    r.onHead(200, JSON_HEAD);
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    for (let sent = 0; sent <= TOOL_MAX_RESPONSE_BYTES; sent += chunk.length) r.onData(chunk);
    r.onData(chunk);
    r.onEnd();
    expect(settled).toHaveLength(1);
    expect((settled[0].error as McpExchangeError).failure).toBe('too-large');
    expect(r.abandoned).toBe(true);
  });

  it('passes a network error on as it is', () => {
    const { r, settled } = reader();
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    r.onHead(200, JSON_HEAD);
    r.onError(reset);
    r.onEnd();
    expect(settled).toEqual([{ error: reset }]);
  });
});
