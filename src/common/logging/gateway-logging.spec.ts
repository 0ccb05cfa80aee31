import type { IncomingMessage, ServerResponse } from 'node:http';
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
  const exchange = (header?: string) => {
    const set: Record<string, string> = {};
    const req = { headers: header === undefined ? {} : { 'x-request-id': header } } as unknown as IncomingMessage;
    const res = { setHeader: (name: string, value: string) => (set[name] = value) } as unknown as ServerResponse;
    return { id: requestIdOf(req, res), echoed: set['X-Request-Id'] };
  };

  it('keeps a sane incoming X-Request-Id and echoes it', () => {
    expect(exchange('req-42.a:b')).toEqual({ id: 'req-42.a:b', echoed: 'req-42.a:b' });
  });

  it.each([['with space'], ['{"json":1}'], ['x'.repeat(129)], ['']])('replaces %p with a new UUID', (header) => {
    const { id, echoed } = exchange(header);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(echoed).toBe(id);
  });

  it('makes a UUID when there is none', () => {
    expect(exchange().id).toMatch(/^[0-9a-f-]{36}$/);
  });
});
