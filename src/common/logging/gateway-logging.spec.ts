import type { IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import { QueryFailedError } from 'typeorm';
import type { GatewayConfig } from '@app/config/gateway-config';
import { createConsoleLogger, createGatewayLogging, resolveLogFormat } from './gateway-logging';
import { fieldLine } from './log-context';
import { requestIdOf } from './request-id';

describe('resolveLogFormat', () => {
  it("keeps Nest's coloured lines only for development at a terminal when LOG_FORMAT=auto", () => {
    expect(resolveLogFormat({ logFormat: 'auto', nodeEnv: 'development' }, true)).toBe('pretty');
    expect(resolveLogFormat({ logFormat: 'auto', nodeEnv: 'development' }, false)).toBe('json');
    expect(resolveLogFormat({ logFormat: 'auto', nodeEnv: 'production' }, true)).toBe('json');
  });

  it('follows an explicit LOG_FORMAT', () => {
    expect(resolveLogFormat({ logFormat: 'json', nodeEnv: 'development' }, true)).toBe('json');
    expect(resolveLogFormat({ logFormat: 'pretty', nodeEnv: 'production' }, false)).toBe('pretty');
  });
});

describe('requestIdOf', () => {
  const idOf = (header?: string) =>
    requestIdOf({ headers: header === undefined ? {} : { 'x-request-id': header } } as unknown as IncomingMessage);

  it('keeps a sane incoming X-Request-Id', () => {
    expect(idOf('req-42.a:b')).toBe('req-42.a:b');
  });

  it.each([['with space'], ['{"json":1}'], ['x'.repeat(129)], ['']])('replaces %p with a new UUID', (header) => {
    expect(idOf(header)).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('makes a UUID when there is none', () => {
    expect(idOf()).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('createConsoleLogger', () => {
  afterEach(() => jest.restoreAllMocks());

  it("masks secrets in Nest's console lines (LOG_FORMAT=pretty) as in the JSON lines: messages and error stacks", () => {
    const written: string[] = [];
    const capture = (chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    };
    jest.spyOn(process.stdout, 'write').mockImplementation(capture);
    jest.spyOn(process.stderr, 'write').mockImplementation(capture);
    const logger = createConsoleLogger(['error', 'warn', 'log']);
    logger.warn('MCP server https://bot:hunter2-pw@mcp.example/x failed: token=tok-0123456789', 'Mcp');
    logger.error(
      'Unhandled error (incident 1)',
      'Error: connect postgres://app:s3cr3t-pw@db/main\n    at connect (db.js:1:1)',
      'Errors',
    );
    logger.log({ note: 'password=obj-secret-1' }, 'Test');
    const text = written.join('');
    expect(text).toContain('MCP server https://bot:***@mcp.example/x failed: token=***');
    expect(text).toContain('at connect (db.js:1:1)');
    for (const secret of ['hunter2-pw', 'tok-0123456789', 's3cr3t-pw', 'obj-secret-1'])
      expect(text).not.toContain(secret);
  });
});

describe('lines with fields (fieldLine)', () => {
  afterEach(() => jest.restoreAllMocks());

  /** The JSON logger of a production gateway, writing into `lines`. */
  function jsonLogger() {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const config = { logFormat: 'json', nodeEnv: 'production', logLevel: 'log' } as GatewayConfig;
    return { logger: createGatewayLogging(config, { destination }).logger, lines };
  }

  it('are JSON lines whose keys are the fields, the message redacted like any other', () => {
    const { logger, lines } = jsonLogger();
    logger.warn(fieldLine('login with password=pw-0123456789 failed', { requestId: 'req-7', tenantId: 'acme' }));
    const line = JSON.parse(lines.join('')) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 'warn', requestId: 'req-7', tenantId: 'acme' });
    expect(line.msg).toContain('password=***');
    expect(lines.join('')).not.toContain('pw-0123456789');
  });

  it("keep an error's type, code, message and stack only: a query error's parameters and SQL stay out", () => {
    const { logger, lines } = jsonLogger();
    const driverError = Object.assign(new Error('Duplicate entry'), {
      code: 'ER_DUP_ENTRY',
      sql: "INSERT INTO t VALUES ('tok-secret-in-sql')",
    });
    const error = new QueryFailedError('INSERT INTO t VALUES (?)', ['param-secret-1'], driverError);
    logger.error({ ...fieldLine('Unhandled error (incident 2)', { requestId: 'req-q' }), err: error });
    const line = JSON.parse(lines.join('')) as { err: Record<string, unknown> };
    expect(line.err).toMatchObject({ type: 'QueryFailedError', code: 'ER_DUP_ENTRY', message: 'Duplicate entry' });
    expect(Object.keys(line.err).sort()).toEqual(['code', 'message', 'stack', 'type']);
    for (const secret of ['param-secret-1', 'tok-secret-in-sql']) expect(lines.join('')).not.toContain(secret);
  });

  it('print their fields after the message in the pretty format, then the error stack, redacted', () => {
    const written: string[] = [];
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const error = new Error('connect postgres://app:s3cr3t-pw@db/main');
    createConsoleLogger(['error']).error(
      { ...fieldLine('Unhandled error (incident 1)', { requestId: 'req-8', tool: 'x' }), err: error },
      'Errors',
    );
    const text = written.join('');
    expect(text).toContain('Unhandled error (incident 1) (requestId=req-8, tool=x)');
    expect(text).toMatch(/at .*gateway-logging\.spec/);
    expect(text).not.toContain('s3cr3t-pw');
  });
});
