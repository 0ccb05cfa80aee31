import { createKey, gatewayForSuite, toolBody } from '@test/support/gateway-test-app';

describe('POST /api/v1/admin/risk/evaluate', () => {
  const suite = gatewayForSuite('sqlite');
  const evaluate = (body: Record<string, unknown>, expected = 200) =>
    suite.gw.http.post('/api/v1/admin/risk/evaluate').set(suite.gw.admin).send(body).expect(expected);

  it('flags a dangerous command with the rule and the offending snippet', async () => {
    const res = await evaluate({ text: 'cd /srv && sudo rm -rf --no-preserve-root /var/lib/app' });
    expect(res.body).toEqual({
      risky: true,
      rules: [expect.objectContaining({ rule: 'recursive-delete', match: expect.stringContaining('rm -rf') })],
    });
  });

  it('does not flag text that only mentions a command', async () => {
    expect((await evaluate({ text: 'echo "never run rm -rf /"' })).body).toEqual({ risky: false, rules: [] });
    expect((await evaluate({ text: "SELECT 'DROP TABLE users' AS note" })).body.risky).toBe(false);
  });

  it("reads every string of tool arguments, with the tool schema's x-risk hints", async () => {
    await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(suite.gw.admin)
      .send(
        toolBody({
          name: 'run_sql',
          parameters: { type: 'object', properties: { statement: { type: 'string', 'x-risk': 'sql' } } },
        }),
      )
      .expect(201);
    const res = await evaluate({
      toolName: 'run_sql',
      arguments: { statement: 'delete from orders -- where id = 5', note: 'cleanup' },
    });
    expect(res.body.risky).toBe(true);
    expect(res.body.rules).toEqual([expect.objectContaining({ rule: 'unscoped-delete', path: 'statement' })]);
  });

  it('reads a command split over two arguments as one command line, and knows the classes added for issue 9', async () => {
    const split = await evaluate({ arguments: { cmd: 'rm', args: '-rf /' } });
    expect(split.body).toEqual({ risky: true, rules: [{ rule: 'recursive-delete', match: 'rm -rf /', path: 'args' }] });
    expect((await evaluate({ text: ':(){ :|:& };:' })).body.rules).toEqual([
      expect.objectContaining({ rule: 'fork-bomb' }),
    ]);
    expect((await evaluate({ text: 'sudo chmod -R 777 /' })).body.rules).toEqual([
      expect.objectContaining({ rule: 'permission-change' }),
    ]);
    expect((await evaluate({ text: 'echo x | sudo tee /etc/hosts' })).body.rules).toEqual([
      expect.objectContaining({ rule: 'system-file-overwrite' }),
    ]);
    expect((await evaluate({ text: 'git push --dry-run --force' })).body).toEqual({ risky: false, rules: [] });
    expect((await evaluate({ text: 'EXPLAIN DELETE FROM users', hint: 'sql' })).body).toEqual({
      risky: false,
      rules: [],
    });
  });

  it('validates the body: exactly one of text and arguments', async () => {
    expect((await evaluate({}, 400)).body.error.code).toBe('VALIDATION_FAILED');
    await evaluate({ text: 'ls', arguments: { a: 'b' } }, 400);
    await evaluate({ text: 'ls', hint: 'python3' }, 400);
  });

  it('is for admins only', async () => {
    const runtime = await createKey(suite.gw, 'acme', 'runtime');
    await suite.gw.http.post('/api/v1/admin/risk/evaluate').set(runtime).send({ text: 'ls' }).expect(403);
  });
});
