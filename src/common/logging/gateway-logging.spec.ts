import type { IncomingMessage } from 'node:http';
import { createConsoleLogger, resolveLogFormat } from './gateway-logging';
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
