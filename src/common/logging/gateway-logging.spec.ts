import type { IncomingMessage } from 'node:http';
import { resolveLogFormat } from './gateway-logging';
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
