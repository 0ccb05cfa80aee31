import { cpuTimedUnder } from '@test/support/cpu-time';
import {
  MAX_REDACTION_DEPTH,
  redact,
  redactArguments,
  redactedPreview,
  redactQuotingText,
  redactSnippets,
  redactText,
  REDACTED,
  TOO_DEEP,
} from './redaction';

describe('redact', () => {
  it('masks built-in sensitive keys at any depth, case-insensitively', () => {
    const out = redact({
      user: 'a',
      Password: 'p',
      nested: [{ apiKey: 'k', ok: 1 }],
      headers: { Authorization: 'Bearer x' },
    });
    expect(out).toEqual({
      user: 'a',
      Password: REDACTED,
      nested: [{ apiKey: REDACTED, ok: 1 }],
      headers: { Authorization: REDACTED },
    });
  });
  it("keeps a __proto__ member (as JSON.parse gives it) as a member, redacted, not as the copy's prototype", () => {
    const out = redact(JSON.parse('{"q":1,"__proto__":{"password":"p","note":"n"}}'));
    expect(JSON.stringify(out)).toBe(`{"q":1,"__proto__":{"password":"${REDACTED}","note":"n"}}`);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
  it("masks the tool's redactFields", () => {
    expect(redact({ ssn: '123', name: 'x' }, ['SSN'])).toEqual({ ssn: REDACTED, name: 'x' });
  });
  it('matches redactFields separator-insensitively too', () => {
    expect(redact({ national_id: '1', NationalId: '2', 'national-id': '3', nation: 'x' }, ['nationalId'])).toEqual({
      national_id: REDACTED,
      NationalId: REDACTED,
      'national-id': REDACTED,
      nation: 'x',
    });
  });
  it.each([
    'pwd',
    'jwt',
    'accessKey',
    'access_key',
    'access-key',
    'AccessKey',
    'ACCESS_KEY',
    'auth',
    'otp',
    'totp',
    'otpCode',
    'secret',
    'client_secret',
    'apiKey',
    'api_key',
    'x-api-key',
    'authorization',
    'proxy-authorization',
    'cookie',
    'Set-Cookie',
    'session_token',
    'sessionToken',
    'credential',
    'credentials',
    'privateKey',
    'private_key',
    'passphrase',
    'db_password',
    'refresh_token',
    'oauth',
    'secretKey',
    'sshKey',
    'connectionString',
    'dsn',
    'pin',
    'cvv',
  ])('masks the value of the key %s', (key) => {
    expect(redact({ [key]: 'sensitive-value', other: 1 })).toEqual({ [key]: REDACTED, other: 1 });
  });
  it.each(['author', 'authority', 'name', 'keyword', 'key', 'sessionId', 'spinner', 'options'])(
    'leaves the key %s alone',
    (key) => {
      expect(redact({ [key]: 'plain' })).toEqual({ [key]: 'plain' });
    },
  );
  it('masks secrets written inside string values', () => {
    const out = redact({
      note: 'connect with postgres://app:s3cr3t@db:5432/main',
      cmd: ['mysql', '--password=hunter2'],
    });
    expect(JSON.stringify(out)).not.toMatch(/s3cr3t|hunter2/);
    expect(out.note).toBe(`connect with postgres://app:${REDACTED}@db:5432/main`);
  });
  it('replaces what is nested deeper than 64 levels with a marker and never overflows the stack', () => {
    let deep: unknown = { password: 'at-the-bottom', note: 'token=bottom-secret' };
    for (let i = 0; i < 10_000; i++) deep = { level: i, c: deep };
    const text = JSON.stringify(redact(deep));
    expect(text).not.toMatch(/at-the-bottom|bottom-secret/);
    expect(text).toContain(TOO_DEEP);
    expect(text.split('"c":').length - 1).toBe(MAX_REDACTION_DEPTH);
  });
  it('masks secrets at depth 64 exactly', () => {
    let deep: unknown = { password: 'p64' };
    for (let i = 0; i < MAX_REDACTION_DEPTH - 1; i++) deep = [deep];
    expect(JSON.stringify(redact(deep))).not.toContain('p64');
  });
  it('does not mutate its input', () => {
    const input = { token: 't' };
    redact(input);
    expect(input.token).toBe('t');
  });
});

describe('redactText', () => {
  it.each([
    ['password=hunter2&x=1', 'hunter2', `password=${REDACTED}&x=1`],
    ['token: abc123', 'abc123', `token: ${REDACTED}`],
    ['set pwd=Zq9xx then go', 'Zq9xx', `set pwd=${REDACTED} then go`],
    ['postgres://user:pa55w0rd@db:5432/x', 'pa55w0rd', `postgres://user:${REDACTED}@db:5432/x`],
    ['mysql://root:r00tpw@h/db', 'r00tpw', `mysql://root:${REDACTED}@h/db`],
    // A URL's user info runs to the last `@` of its authority (the URL parser's reading): an `@` in the password too.
    [
      'call https://svc:p@ss-w0rd@mcp.example/mcp failed',
      'ss-w0rd',
      `call https://svc:${REDACTED}@mcp.example/mcp failed`,
    ],
    ['mysql://gw:a@b@c0de@db:3306/x?ssl=u@v', 'c0de', `mysql://gw:${REDACTED}@db:3306/x?ssl=u@v`],
    ['jdbc:mysql://h/db?user=app&password=jdbcpw', 'jdbcpw', `jdbc:mysql://h/db?user=app&password=${REDACTED}`],
    [
      'Server=tcp:x;Database=d;User Id=sa;Password=S3cret!;',
      'S3cret!',
      `Server=tcp:x;Database=d;User Id=sa;Password=${REDACTED};`,
    ],
    ['Data Source=x;PWD=p4ssw;', 'p4ssw', `Data Source=x;PWD=${REDACTED};`],
    ['Authorization: Bearer abc.def.ghi', 'abc.def.ghi', `Authorization: Bearer ${REDACTED}`],
    ['curl -H "Authorization: Basic dXNlcjpwYXNz" x', 'dXNlcjpwYXNz', `curl -H "Authorization: Basic ${REDACTED}" x`],
    ['use bearer tok_0123456789 now', 'tok_0123456789', `use bearer ${REDACTED} now`],
    ['{"apiKey": "zzz top", "x": 1}', 'zzz top', `{"apiKey": "${REDACTED}", "x": 1}`],
    ['{\\"client_secret\\":\\"esc4ped\\"}', 'esc4ped', `{\\"client_secret\\":\\"${REDACTED}\\"}`],
    ['otp: 493021', '493021', `otp: ${REDACTED}`],
    [
      'https://ghp_abcdefghijklmnopqrstuvwxyz0123@github.com/x',
      'ghp_abcdefghijklmnopqrstuvwxyz0123',
      `https://${REDACTED}@github.com/x`,
    ],
    [
      '/api/v1/sessions/s1/events/stream?key=gwk_2ubvtT1_KUd7CjF1RkJ0FaKe0ireC1gLzejkKMLEv_E',
      'gwk_2ubvtT1_KUd7CjF1RkJ0FaKe0ireC1gLzejkKMLEv_E',
      `/api/v1/sessions/s1/events/stream?key=${REDACTED}`,
    ],
    ['id AKIAIOSFODNN7EXAMPLE here', 'AKIAIOSFODNN7EXAMPLE', `id ${REDACTED} here`],
    ['x eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl y', 'eyJzdWIiOiIxIn0', `x ${REDACTED} y`],
    ['curl -u admin:hunter2 https://x', 'hunter2', `curl -u admin:${REDACTED} https://x`],
    ['curl --user "admin:hunter2" x', 'hunter2', `curl --user "admin:${REDACTED}" x`],
    ['wget --proxy-user=me:hunter2 x', 'hunter2', `wget --proxy-user=me:${REDACTED} x`],
    ['mysql --password hunter2 -e "DROP TABLE t"', 'hunter2', `mysql --password ${REDACTED} -e "DROP TABLE t"`],
    ['app --db-password "two words" --v', 'two words', `app --db-password "${REDACTED}" --v`],
    ['gh --api-key k3y --token t0k x', 'k3y', `gh --api-key ${REDACTED} --token ${REDACTED} x`],
    ['vault --client_secret s3c', 's3c', `vault --client_secret ${REDACTED}`],
    [
      'mysql -uroot -pS3cretPw -e "DROP DATABASE prod"',
      'S3cretPw',
      `mysql -uroot -p${REDACTED} -e "DROP DATABASE prod"`,
    ],
    ["mysqldump -h db -p'two words' shop", 'two words', `mysqldump -h db -p'${REDACTED}' shop`],
    ['cd /x && /usr/bin/mariadb -u a -pS3cretPw db', 'S3cretPw', `cd /x && /usr/bin/mariadb -u a -p${REDACTED} db`],
    ['sshpass -p hunter2xyz ssh root@h "rm -rf /"', 'hunter2xyz', `sshpass -p ${REDACTED} ssh root@h "rm -rf /"`],
  ])('masks %s', (text, secret, expected) => {
    const out = redactText(text);
    expect(out).not.toContain(secret);
    expect(out).toBe(expected);
  });
  it('masks a private key block, and one that was cut before its END line', () => {
    const block = '-----BEGIN RSA PRIVATE KEY-----\nMIIEkeymaterial\n-----END RSA PRIVATE KEY-----';
    expect(redactText(`a ${block} b`)).toBe(`a ${REDACTED} b`);
    expect(redactText('x -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk')).toBe(`x ${REDACTED}`);
  });
  it('leaves ordinary text alone', () => {
    for (const text of [
      'the author: Jane',
      'compass=north',
      'passengers: 3',
      'https://example.com/a?b=c',
      'plain secret text',
      'docker login --password-stdin -u bob registry',
      'kubectl --token-file /run/token get pods',
      'sort -u names.txt',
      'mysql -u root --no-password --verbose',
      'ssh -p 2222 host',
      'mysql -u root -p shop',
      'mysql -h db -P 3306 --port=3306 shop',
      'ls -p dir; mkdir -p a/b',
    ])
      expect(redactText(text)).toBe(text);
  });
  it('stays linear on hostile input', () => {
    const hostile = [
      'a'.repeat(500_000),
      'x://'.repeat(100_000),
      'password'.repeat(60_000),
      'eyJ'.repeat(150_000),
      '-----BEGIN RSA PRIVATE KEY-----'.repeat(15_000),
      ('token' + '-'.repeat(39)).repeat(10_000),
      '--a-a-a-a-a'.repeat(50_000),
      ' --password'.repeat(50_000),
      ` -u ${'a'.repeat(300)}`.repeat(2_000),
      'mysql '.repeat(100_000),
      `mysql${' -p'.repeat(100_000)}`,
      'sshpass -p '.repeat(50_000),
    ];
    const { cpuMs } = cpuTimedUnder(2000, () => {
      for (const text of hostile) redactText(text);
    });
    expect(cpuMs).toBeLessThan(2000);
  });
});

describe('redactedPreview', () => {
  const secretFirst = JSON.stringify({
    apiKey: 'sk-live-not-shown',
    items: Array.from({ length: 100 }, (_, i) => ({ id: i, text: 'x'.repeat(40) })),
    ssn: '078-05-1120',
  });

  it('redacts a JSON result longer than the preview before cutting it', () => {
    expect(secretFirst.length).toBeGreaterThan(2000);
    const preview = redactedPreview(secretFirst, [], 2000);
    expect(preview).toHaveLength(2000);
    expect(preview).not.toContain('sk-live-not-shown');
    expect(preview.startsWith(`{"apiKey":"${REDACTED}","items":[{"id":0,`)).toBe(true);
  });
  it("masks whole sensitive subtrees and the tool's redactFields at any depth", () => {
    const text = '{"a":1,"password":{"x":[1,"}",2]},"Access-Key":5,"b":"c","n":[{"SSN":"1"}]}';
    expect(redactedPreview(text, ['ssn'], 2000)).toBe(
      `{"a":1,"password":"${REDACTED}","Access-Key":"${REDACTED}","b":"c","n":[{"SSN":"${REDACTED}"}]}`,
    );
  });
  it('masks a secret that a cut JSON text holds, and free text in its values', () => {
    expect(redactedPreview('{"note":"login with password=hunter2", "token": "abc', [], 2000)).toBe(
      `{"note":"login with password=${REDACTED}", "token": "${REDACTED}"`,
    );
  });
  it('masks free text that is not JSON', () => {
    expect(redactedPreview(`done; DSN postgres://u:pw123@h/db; ${'y'.repeat(3000)}`, [], 100)).toBe(
      `done; DSN postgres://u:${REDACTED}@h/db; ${'y'.repeat(3000)}`.slice(0, 100),
    );
  });
  it('scans JSON nested far deeper than 64 levels without recursing', () => {
    const deep = `${'{"a":'.repeat(100_000)}{"secret":"deep-down"}${'}'.repeat(100_000)}`;
    const preview = redactedPreview(`${'{"b":'.repeat(10)}{"secret":"near"}${'}'.repeat(10)}`, [], 2000);
    expect(preview).not.toContain('near');
    expect(redactedPreview(deep, [], 600_000)).not.toContain('deep-down');
  });
  it('previews the start of a huge result and cuts it where the preview ends', () => {
    // How much of the text is read is a speed property (a benchmark's business, not a timed test): here only the answer.
    const huge = `{"first":"${'y'.repeat(5_000_000)}","token":"t"}`;
    expect(redactedPreview(huge, [], 30)).toBe(`{"first":"${'y'.repeat(20)}`);
  });
});

describe('redactArguments', () => {
  it('redacts arguments sent as a JSON string like an object', () => {
    expect(redactArguments('{"q":"a","ssn":"1","password":"p"}', ['ssn'])).toEqual({
      q: 'a',
      ssn: REDACTED,
      password: REDACTED,
    });
  });
  it('redacts arguments that are not JSON as text', () => {
    expect(redactArguments('user=bob password=hunter2 host=x')).toBe(`user=bob password=${REDACTED} host=x`);
    expect(redactArguments('{"ssn":"078-05-1120","q":"cut here', ['ssn'])).toBe(`{"ssn":"${REDACTED}","q":"cut here`);
  });
  it('redacts objects', () => {
    expect(redactArguments({ token: 't', q: 1 })).toEqual({ token: REDACTED, q: 1 });
  });
});

describe('redactQuotingText', () => {
  const rules = [
    { match: 'DROP TABLE payroll_2025', path: 'steps[1].sql' },
    { match: 'rm -rf ./build', path: 'command' },
  ];
  it('masks snippets found under one of the fields or a sensitive key, and free text', () => {
    expect(redactQuotingText('risky: drop (e.g. "DROP TABLE payroll_2025"), token=abc', rules, ['SQL'])).toBe(
      `risky: drop (e.g. "${REDACTED}"), token=${REDACTED}`,
    );
    expect(redactQuotingText('e.g. "x"', [{ match: 'x', path: 'auth.header' }])).toBe(`e.g. "${REDACTED}"`);
  });
  it('keeps snippets of other arguments', () => {
    expect(redactQuotingText('e.g. "rm -rf ./build"', rules, ['sql'])).toBe('e.g. "rm -rf ./build"');
  });
  it('masks the snippets themselves', () => {
    expect(redactSnippets(rules, ['sql']).map((r) => r.match)).toEqual([REDACTED, 'rm -rf ./build']);
  });
});
