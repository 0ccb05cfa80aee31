import { checkHeaderTemplates, checkToolDefinition } from './tool-definition.rules';

describe('checkHeaderTemplates', () => {
  it.each(['Host', 'content-length', 'Transfer-Encoding', 'Connection', 'Upgrade', 'Expect'])(
    'refuses %s, which the HTTP client sets from the URL and the body',
    (name) => {
      const problems = checkHeaderTemplates({ [name]: 'x', Accept: 'application/json' });
      expect(problems).toEqual([{ field: `headers.${name}`, problems: [expect.stringContaining('remove it')] }]);
    },
  );

  it('accepts ordinary headers and secret references', () => {
    expect(checkHeaderTemplates({ Accept: 'application/json', Authorization: 'Bearer ${secret:TOKEN}' })).toEqual([]);
  });

  it('refuses two names that differ only in case: HTTP header names are one name, and only one value would be sent', () => {
    expect(checkHeaderTemplates({ Authorization: 'Bearer ${secret:A}', authorization: 'Bearer ${secret:B}' })).toEqual([
      {
        field: 'headers.authorization',
        problems: ['is also given as "Authorization" (header names ignore case, so only one would be sent); keep one'],
      },
    ]);
  });
});

describe('checkToolDefinition', () => {
  it.each([
    ['HTTP', 'https://{host}/orders/{id}'],
    ['HTTP', 'https://api.{region}.example.com/orders'],
    ['HTTP', 'http://127.0.0.1:{port}/x'],
    ['HTTP', '{scheme}://example.com/x'],
    ['MCP_REMOTE', 'https://{host}/mcp'],
  ])(
    'refuses a %s endpoint whose scheme or host holds a {placeholder} (%s): no call could ever be sent',
    (type, url) => {
      expect(checkToolDefinition({ serviceType: type as 'HTTP', endpoint: url })).toEqual([
        { field: 'endpoint', problems: [expect.stringMatching(/placeholder.*only in the path and query/)] },
      ]);
    },
  );

  it('refuses headers on a tool whose service type sends none, saying to leave them out', () => {
    expect(
      checkToolDefinition({ serviceType: 'LOCAL', endpoint: 'Calc.add', headers: { Accept: 'application/json' } }),
    ).toEqual([
      { field: 'headers', problems: ['are only used by HTTP and MCP_REMOTE tools, not LOCAL; leave headers out'] },
    ]);
  });

  it('accepts placeholders in the path and query of an HTTP endpoint', () => {
    expect(checkToolDefinition({ serviceType: 'HTTP', endpoint: 'https://x.example.com/o/{id}?v={v}' })).toEqual([]);
  });
});
