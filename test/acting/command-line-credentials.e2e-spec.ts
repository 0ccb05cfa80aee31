import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { createKey, gatewayForSuite, sessionWithTool, SHELL_TOOL_FIELDS } from '@test/support/gateway-test-app';

const PASSWORD = 'hunter2-not-shown';

/**
 * Credentials written as a command line's options (`mysql --password x`, `curl -u user:x`), as a model's RUN_COMMAND or a
 * shell tool's `command` carries them: masked in the review queue, the session's hitlRequest and the tool log, as
 * `--password=x` always was.
 */
describe('command-line credentials in arguments: masked wherever arguments are shown', () => {
  const remote = new RecordingHttpServer();
  const suite = gatewayForSuite('sqlite', { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
  let runtime: { Authorization: string };
  let sessionId: string;

  beforeAll(async () => {
    await remote.start();
    runtime = await createKey(suite.gw, 'acme', 'runtime');
    ({ sessionId } = await sessionWithTool(suite.gw, runtime, 'acme', {
      name: 'shell',
      endpoint: remote.url('/shell'),
      ...SHELL_TOOL_FIELDS,
    }));
  });
  afterAll(() => remote.stop());

  const act = (iteration: number, id: string, command: string) =>
    suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration, toolCalls: [{ id, name: 'shell', arguments: { command } }] })
      .expect(200);

  it('a run call (curl -u user:password) and a risky one (mysql --password x ... DROP TABLE) under review', async () => {
    expect((await act(1, 'cred_1', `curl -u admin:${PASSWORD} https://example.test/x`)).body.status).toBe('COMPLETED');
    expect(JSON.parse(remote.requests.at(-1)!.body).command).toContain(PASSWORD);

    const risky = (await act(2, 'cred_2', `mysql --password ${PASSWORD} -e "DROP TABLE users"`)).body;
    expect(risky.status).toBe('INTERRUPTED');
    expect(risky.hitlRequest.toolParams).toEqual({ command: 'mysql --password *** -e "DROP TABLE users"' });
    const queue = await suite.gw.http.get('/api/v1/admin/hitl?status=PENDING').set(suite.gw.admin).expect(200);
    const log = await suite.gw.http
      .get(`/api/v1/admin/tool-calls?sessionId=${sessionId}`)
      .set(suite.gw.admin)
      .expect(200);
    expect(log.body.items.map((row: { arguments: { command: string } }) => row.arguments.command)).toEqual(
      expect.arrayContaining([
        'curl -u admin:*** https://example.test/x',
        'mysql --password *** -e "DROP TABLE users"',
      ]),
    );
    expect(JSON.stringify([risky, queue.body, log.body])).not.toContain(PASSWORD);
  });
});
