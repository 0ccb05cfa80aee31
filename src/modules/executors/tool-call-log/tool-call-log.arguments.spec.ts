import { LOG_ARGUMENTS_MAX_CHARS, loggedArguments } from './tool-call-log.arguments';

describe('loggedArguments', () => {
  it('keeps arguments that fit as their JSON', () => {
    expect(loggedArguments({ path: 'a.txt' })).toBe('{"path":"a.txt"}');
    expect(loggedArguments(undefined)).toBe('null');
  });

  it('shortens larger arguments to a marker with the start of their JSON, never longer than about twice the cap', () => {
    const text = loggedArguments({ content: '"'.repeat(1_000_000) });
    expect(text.length).toBeLessThan(2 * LOG_ARGUMENTS_MAX_CHARS + 200);
    const parsed = JSON.parse(text);
    expect(parsed.$truncated).toMatch(/^arguments of 2000014 characters of JSON shortened for the log/);
    expect(parsed.preview).toBe(`{"content":"${'\\"'.repeat(1994)}`);
  });
});

describe('loggedArguments of large arguments', () => {
  const big = 'x'.repeat(2 * 1024 * 1024);

  it('masks sensitive keys and secrets in the start it keeps, from an object or from the model text', () => {
    const args = {
      password: 'hunter2hunter2',
      note: 'token sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
      content: big,
    };
    for (const raw of [args, JSON.stringify(args)]) {
      const parsed = JSON.parse(loggedArguments(raw));
      expect(parsed.preview).toMatch(/^\{"password":"\*\*\*","note":"token /);
      expect(parsed.preview).not.toContain('hunter2');
      expect(parsed.preview).not.toContain('AbCdEfGhIjKlMnOp');
      expect(parsed.preview.length).toBeLessThanOrEqual(LOG_ARGUMENTS_MAX_CHARS);
    }
  });

  it('masks secrets that follow a line break or a tab of a string, written \\n and \\t in the JSON', () => {
    const lines = [
      'keys:\nsk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
      'run:\nmysql -uroot -pS3cretPw db',
      'run:\n--password\thunter2xyz',
      'jwt:\neyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijk',
      'header:\nBearer abcdefghijklmnop',
    ];
    const args = { note: lines.join('\n'), content: big };
    for (const raw of [args, JSON.stringify(args)]) {
      const preview: string = JSON.parse(loggedArguments(raw)).preview;
      expect(preview).toMatch(/^\{"note":"keys:\\n\*\*\*\\nrun:/);
      for (const secret of ['AbCdEfGhIjKlMnOp', 'S3cretPw', 'hunter2xyz', 'eyJzdWIi', 'abcdefghijklmnop'])
        expect(preview).not.toContain(secret);
    }
  });

  it('masks such a secret in a string read only in part (cut past the start kept)', () => {
    const secret = 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
    const args = { content: `${'x'.repeat(LOG_ARGUMENTS_MAX_CHARS - 100)}\n${secret}\n${big}` };
    const preview: string = JSON.parse(loggedArguments(args)).preview;
    expect(preview).toContain('x\\n***\\nxxx');
    expect(preview).not.toContain('AbCdEfGhIjKlMnOp');
  });

  it('masks the keys the tool names in redactFields', () => {
    const parsed = JSON.parse(loggedArguments({ accountPin: '4711', content: big }, ['accountPin']));
    expect(parsed.preview).toMatch(/^\{"accountPin":"\*\*\*","content":"xxx/);
  });
});
