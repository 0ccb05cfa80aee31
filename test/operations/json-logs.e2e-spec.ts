import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { GatewayProcess, GATEWAY_PROCESS_ADMIN_KEY } from '@test/support/gateway-process';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { toolBody } from '@test/support/gateway-test-app';
import { waitFor } from '@test/support/wait-for';

type LogLine = Record<string, any>;

const ARGUMENT_SECRET = 'hunter2-argument-secret';
const QUERY_SECRET = 'sk-live-0123456789abcdefghijkl';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The JSON lines a gateway child process printed (its first line dropped: the kept tail may start mid-line). */
function logLines(gateway: GatewayProcess): LogLine[] {
  const lines = gateway
    .outputTail()
    .split('\n')
    .slice(1)
    .filter((l) => l.trim().length > 0);
  return lines.map((line) => {
    try {
      return JSON.parse(line) as LogLine;
    } catch {
      throw new Error(`not a JSON log line: ${line}`);
    }
  });
}

/** The completion line of request `id` (written when the response has finished, so possibly after the client read it). */
function completionLine(gateway: GatewayProcess, id: string | null): Promise<LogLine> {
  return waitFor(() => logLines(gateway).find((l) => l.requestId === id && l.msg === 'request completed'), {
    description: `the completion line of request ${id}`,
  });
}

describe('JSON logs of a gateway process (LOG_FORMAT=json)', () => {
  const dbFile = join(tmpdir(), `gw-logs-${randomBytes(4).toString('hex')}.sqlite`);
  let gateway: GatewayProcess;
  let remote: RecordingHttpServer;
  let runtimeKey: string;
  let sessionId: string;
  let agentId: string;

  const send = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    fetch(`${gateway.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const runtime = () => ({ Authorization: `Bearer ${runtimeKey}` });

  beforeAll(async () => {
    remote = new RecordingHttpServer();
    remote.handler = (_req, res) => {
      res.statusCode = 400;
      res.setHeader('content-type', 'application/json');
      res.end('{"error":"refused"}');
    };
    await remote.start();
    gateway = await GatewayProcess.start({
      databaseUrl: `sqlite:${dbFile}`,
      env: { LOG_LEVEL: 'debug', LOG_FORMAT: 'json', TOOL_MAX_ATTEMPTS: '1' },
    });
    const admin = gateway.admin;
    runtimeKey = (
      await gateway.call('POST', '/api/v1/admin/api-keys', { name: 'rt', role: 'runtime', tenantId: 'acme' }, admin)
    ).body.key;
    const tool = await gateway.call(
      'POST',
      '/api/v1/admin/tools',
      toolBody({
        name: 'bad_tool',
        tenantId: 'acme',
        endpoint: remote.url('/bad'),
        parameters: { type: 'object', properties: { q: { type: 'string' }, password: { type: 'string' } } },
      }),
      admin,
    );
    expect({ status: tool.status, body: tool.body }).toMatchObject({ status: 201 });
    const agent = await gateway.call('POST', '/api/v1/admin/agents', { name: 'log-bot', tenantId: 'acme' }, admin);
    expect({ status: agent.status, body: agent.body }).toMatchObject({ status: 201 });
    agentId = agent.body.id;
    const binding = await gateway.call(
      'PUT',
      `/api/v1/admin/agents/${agentId}/tools`,
      { toolIds: [tool.body.id] },
      admin,
    );
    expect({ status: binding.status, body: binding.body }).toMatchObject({ status: 200 });
    const session = await gateway.call(
      'POST',
      '/api/v1/sessions',
      { agentId, userId: 'u1', permissions: [] },
      runtime(),
    );
    expect({ status: session.status, body: session.body }).toMatchObject({ status: 201 });
    sessionId = session.body.id;
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
    await remote?.stop();
    rmSync(dbFile, { force: true });
    rmSync(`${dbFile}-wal`, { force: true });
    rmSync(`${dbFile}-shm`, { force: true });
  });

  it('tags act lines with the caller’s request id, tenant, session and tool call id', async () => {
    const res = await send(
      'POST',
      `/api/v1/sessions/${sessionId}/act`,
      { ...runtime(), 'X-Request-Id': 'req-act-1' },
      {
        iteration: 1,
        toolCalls: [{ id: 'call-bad-1', name: 'bad_tool', arguments: { q: 'x', password: ARGUMENT_SECRET } }],
      },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('req-act-1');
    expect(((await res.json()) as { results: unknown[] }).results[0]).toMatchObject({
      status: 'FAILED',
      errorClass: 'HTTP_CLIENT_ERROR',
    });

    expect(await completionLine(gateway, 'req-act-1')).toMatchObject({
      level: 'info',
      tenantId: 'acme',
      sessionId,
      req: { method: 'POST', url: `/api/v1/sessions/${sessionId}/act` },
      res: { statusCode: 200 },
    });
    expect(
      logLines(gateway).find((l) => l.requestId === 'req-act-1' && String(l.msg).startsWith('Tool bad_tool failed')),
    ).toMatchObject({
      level: 'debug',
      tenantId: 'acme',
      sessionId,
      toolCallId: 'call-bad-1',
      tool: 'bad_tool',
    });
  });

  it('tags execute lines with the caller’s request id, tenant and tool call id', async () => {
    const res = await send(
      'POST',
      '/api/v1/tools/bad_tool/execute',
      { ...runtime(), 'X-Request-Id': 'req-exec-tagged' },
      { agentId, userId: 'u1', permissions: [], toolCallId: 'direct-tagged-1', arguments: { q: 'x' } },
    );
    expect(res.status).toBe(200);
    expect(
      await waitFor(
        () =>
          logLines(gateway).find(
            (l) => l.requestId === 'req-exec-tagged' && String(l.msg).startsWith('Tool bad_tool failed'),
          ),
        { description: 'the failed call’s line' },
      ),
    ).toMatchObject({ level: 'debug', tenantId: 'acme', toolCallId: 'direct-tagged-1', tool: 'bad_tool' });
  });

  it('makes a request id when the incoming one is not sane, and tags other routes too', async () => {
    const res = await send('GET', `/api/v1/sessions/${sessionId}`, {
      ...runtime(),
      'X-Request-Id': 'two words {"injected":true}',
    });
    expect(res.status).toBe(200);
    const id = res.headers.get('x-request-id')!;
    expect(id).toMatch(UUID);
    expect(await completionLine(gateway, id)).toMatchObject({
      tenantId: 'acme',
      req: { method: 'GET' },
      res: { statusCode: 200 },
    });
  });

  it('writes the completion line of a request answered before its route (a body that is not JSON)', async () => {
    const res = await fetch(`${gateway.url}/api/v1/tools/bad_tool/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Request-Id': 'req-bad-json', ...runtime() },
      body: '{"oops',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-request-id')).toBe('req-bad-json');
    expect(await completionLine(gateway, 'req-bad-json')).toMatchObject({
      level: 'info',
      req: { method: 'POST', url: '/api/v1/tools/bad_tool/execute' },
      res: { statusCode: 400 },
      responseTime: expect.any(Number),
    });
  });

  it('never writes a key, an Authorization header, a redacted argument or a secret in a query string', async () => {
    const res = await send('GET', `/api/v1/admin/tool-calls?token=${QUERY_SECRET}`, {
      ...gateway.admin,
      Cookie: 'session=cookie-secret-1',
    });
    const id = res.headers.get('x-request-id');
    // A client that cannot set headers (a browser's EventSource) puts its key in the URL: a gateway key is known by its shape.
    const keyInUrl = await send('GET', `/api/v1/sessions/${sessionId}?key=${runtimeKey}`, runtime());
    expect((await completionLine(gateway, keyInUrl.headers.get('x-request-id'))).req.url).toBe(
      `/api/v1/sessions/${sessionId}?key=***`,
    );
    await send(
      'POST',
      '/api/v1/tools/bad_tool/execute',
      { ...runtime(), 'X-Request-Id': 'req-exec-1' },
      { agentId, userId: 'u1', permissions: [], toolCallId: 'd1', arguments: { password: ARGUMENT_SECRET } },
    );

    expect((await completionLine(gateway, id)).req.url).toBe('/api/v1/admin/tool-calls?token=***');
    expect(await completionLine(gateway, 'req-exec-1')).toMatchObject({ tenantId: 'acme', res: { statusCode: 200 } });
    const text = gateway.outputTail();
    for (const secret of [
      runtimeKey,
      GATEWAY_PROCESS_ADMIN_KEY,
      ARGUMENT_SECRET,
      QUERY_SECRET,
      'cookie-secret-1',
      'Bearer ',
    ])
      expect(text).not.toContain(secret);
  });
});

describe('a production gateway without METRICS_TOKEN', () => {
  const dbFile = join(tmpdir(), `gw-logs-${randomBytes(4).toString('hex')}.sqlite`);
  let gateway: GatewayProcess;

  beforeAll(async () => {
    gateway = await GatewayProcess.start({
      databaseUrl: `sqlite:${dbFile}`,
      env: { NODE_ENV: 'production', LOG_FORMAT: 'json', ADMIN_API_KEY: GATEWAY_PROCESS_ADMIN_KEY },
    });
  }, 120_000);
  afterAll(async () => {
    await gateway?.stop();
    for (const ending of ['', '-wal', '-shm']) rmSync(`${dbFile}${ending}`, { force: true });
  });

  it('warns once at start that /metrics is open', () => {
    // The whole output so far is kept (it is short): its first line is whole.
    const warnings = gateway
      .outputTail()
      .split('\n')
      .filter((l) => l.includes('METRICS_TOKEN is not set'))
      .map((l) => JSON.parse(l) as LogLine);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 'warn', context: 'Metrics' });
  });
});
