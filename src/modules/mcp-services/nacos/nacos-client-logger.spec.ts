import { createNacosClientLogger, redact } from './nacos-client-logger';

function sink() {
  const lines: string[] = [];
  return {
    lines,
    debug: (m: string) => lines.push(`debug ${m}`),
    warn: (m: string) => lines.push(`warn ${m}`),
    error: (m: string) => lines.push(`error ${m}`),
  };
}

describe('createNacosClientLogger', () => {
  it('logs an error as name and message only, never its request path with the query string', () => {
    const out = sink();
    const err = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8848'), {
      path: '/nacos/v1/ns/instance/list?serviceName=a&username=nacos&password=hunter2-secret',
    });
    createNacosClientLogger(out, ['hunter2-secret']).warn(err);
    expect(out.lines).toEqual(['warn Error: connect ECONNREFUSED 127.0.0.1:8848']);
  });

  it('masks the password in formatted lines, raw and URL-encoded', () => {
    const out = sink();
    const logger = createNacosClientLogger(out, ['p@ss word!']);
    logger.error('failed: %s', 'GET /x?password=p%40ss%20word!&accessToken=abc123');
    logger.info('%j', { note: 'p@ss word!' });
    expect(out.lines.join('\n')).not.toMatch(/p@ss|p%40ss|abc123/);
    expect(out.lines[0]).toContain('password=***');
  });

  it('sends the client info lines (one per push) to debug', () => {
    const out = sink();
    createNacosClientLogger(out, []).info('[PushReceiver] received push data: %s', '{}');
    expect(out.lines).toEqual(['debug [PushReceiver] received push data: {}']);
  });

  it('drops everything when no sink is given', () => {
    const logger = createNacosClientLogger(undefined, ['x']);
    expect(() => logger.error(new Error('boom'))).not.toThrow();
  });
});

describe('redact', () => {
  it('masks the literal password as sent, URL-encoded (either case) and JSON-escaped (also with \\/)', () => {
    const password = 'pa/ss+w&rd';
    const line = `p=${password} q=${encodeURIComponent(password)} r=${encodeURIComponent(password).toLowerCase()} s="pa\\/ss+w&rd"`;
    expect(redact(line, [password, ''])).toBe('p=*** q=*** r=*** s="***"');
  });

  it('masks password= and accessToken= values of any query string', () => {
    expect(redact('a?username=u&password=s3&accessToken=t0k&x=1', [])).toBe(
      'a?username=u&password=***&accessToken=***&x=1',
    );
  });
});
