import { DataSource } from 'typeorm';
import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import { bearer, createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { McpServiceEntity } from '@app/modules/mcp-services/mcp-service.entity';

/** The value of the series `name{labels}` in a Prometheus text scrape (labels in the order the metric declares them). */
function seriesValue(scrape: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const prefix = pairs.length > 0 ? `${name}{${pairs.join(',')}} ` : `${name} `;
  const line = scrape.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length));
}

interface Fixture {
  gw: TestGateway;
  runtime: { Authorization: string };
  agentId: string;
}

/** Two HTTP tools on the recording server (`ok_tool` answers 200, `bad_tool` 400) bound to a new agent of tenant acme. */
async function setUp(gw: TestGateway, remote: RecordingHttpServer, maxIterations = 10): Promise<Fixture> {
  const runtime = await createKey(gw, 'acme', 'runtime');
  const ids: string[] = [];
  for (const name of ['ok_tool', 'bad_tool']) {
    ids.push(
      (
        await gw.http
          .post('/api/v1/admin/tools')
          .set(gw.admin)
          .send(toolBody({ name, tenantId: 'acme', endpoint: remote.url(`/${name}`) }))
          .expect(201)
      ).body.id,
    );
  }
  const agentId = (
    await gw.http
      .post('/api/v1/admin/agents')
      .set(gw.admin)
      .send({ name: `metrics-bot-${maxIterations}`, tenantId: 'acme', maxIterations })
      .expect(201)
  ).body.id;
  await gw.http.put(`/api/v1/admin/agents/${agentId}/tools`).set(gw.admin).send({ toolIds: ids }).expect(200);
  return { gw, runtime, agentId };
}

async function newSession(f: Fixture): Promise<string> {
  return (
    await f.gw.http
      .post('/api/v1/sessions')
      .set(f.runtime)
      .send({ agentId: f.agentId, userId: 'u1', permissions: [] })
      .expect(201)
  ).body.id;
}

function act(f: Fixture, sessionId: string, iteration: number, toolCalls: Array<{ id: string; name: string }>) {
  return f.gw.http
    .post(`/api/v1/sessions/${sessionId}/act`)
    .set(f.runtime)
    .send({ iteration, toolCalls: toolCalls.map((c) => ({ ...c, arguments: { q: 'x' } })) })
    .expect(200);
}

async function scrape(gw: TestGateway, headers: Record<string, string> = {}): Promise<string> {
  const res = await gw.http.get('/metrics').set(headers).expect(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain;.*version=0\.0\.4/);
  return res.text;
}

function startRemote(): Promise<RecordingHttpServer> {
  const remote = new RecordingHttpServer();
  remote.handler = (req, res) => {
    res.setHeader('content-type', 'application/json');
    res.statusCode = req.url.startsWith('/bad_tool') ? 400 : 200;
    res.end(req.url.startsWith('/bad_tool') ? '{"error":"no"}' : '{"ok":true}');
  };
  return remote.start();
}

describeEachDialect('GET /metrics', (dialect) => {
  let db: TestDatabase;
  let gw: TestGateway;
  let remote: RecordingHttpServer;
  let f: Fixture;

  beforeAll(async () => {
    remote = await startRemote();
    db = await createTestDatabaseUrl(dialect);
    gw = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', TOOL_MAX_ATTEMPTS: '1' });
    f = await setUp(gw, remote, 1);
  });

  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
    await db?.drop();
  });

  it('counts calls by tool, status and error class, and times calls and act, for act and execute alike', async () => {
    const sessionId = await newSession(f);
    await act(f, sessionId, 1, [
      { id: 'c1', name: 'ok_tool' },
      { id: 'c2', name: 'bad_tool' },
      { id: 'c3', name: 'ok_tool' },
    ]);
    await gw.http
      .post('/api/v1/tools/ok_tool/execute')
      .set(f.runtime)
      .send({ agentId: f.agentId, userId: 'u1', permissions: [], toolCallId: 'direct-1', arguments: { q: 'x' } })
      .expect(200);
    // A repeated call id is answered from the journal: not a new call.
    await act(f, sessionId, 1, [{ id: 'c1', name: 'ok_tool' }]);

    const text = await scrape(gw);
    expect(
      seriesValue(text, 'gateway_tool_calls_total', { tool: 'ok_tool', status: 'COMPLETED', error_class: 'none' }),
    ).toBe(3);
    expect(
      seriesValue(text, 'gateway_tool_calls_total', {
        tool: 'bad_tool',
        status: 'FAILED',
        error_class: 'HTTP_CLIENT_ERROR',
      }),
    ).toBe(1);
    expect(
      seriesValue(text, 'gateway_tool_call_duration_seconds_count', { service_type: 'HTTP', status: 'COMPLETED' }),
    ).toBe(3);
    expect(
      seriesValue(text, 'gateway_tool_call_duration_seconds_count', { service_type: 'HTTP', status: 'FAILED' }),
    ).toBe(1);
    expect(seriesValue(text, 'gateway_act_duration_seconds_count', { outcome: 'COMPLETED' })).toBe(2);
    expect(seriesValue(text, 'gateway_act_duration_seconds_sum', { outcome: 'COMPLETED' })).toBeGreaterThan(0);
    // Only open entries are counted (finished ones are the calls counted above): the scrape reads their index.
    expect(seriesValue(text, 'gateway_journal_entries', { state: 'STARTED' })).toBe(0);
    expect(seriesValue(text, 'gateway_journal_entries', { state: 'COMPLETED' })).toBeUndefined();
    await gw.app.get(DataSource).query(
      `INSERT INTO tool_call_journal (tenant_id, session_id, tool_call_id, tool_name, fingerprint, arguments_json,
         side_effect, state, attempts, iteration, owner, lease_expires_at, started_at, is_error, total_chars,
         result_chunks, inline_limit)
       VALUES ('acme', ?, 'open-1', 'ok_tool', 'f', '{}', 'SIDE_EFFECT', 'STARTED', 1, 1, 'elsewhere', 0, 0, 0, 0, 0, 100)`,
      [sessionId],
    );
    const later = await scrape(gw);
    expect(seriesValue(later, 'gateway_journal_entries', { state: 'STARTED' })).toBe(1);
    expect(text).toContain('process_cpu_user_seconds_total');
  });

  it('times an act that answers an error as ERROR', async () => {
    const before = seriesValue(await scrape(gw), 'gateway_act_duration_seconds_count', { outcome: 'ERROR' }) ?? 0;
    await gw.http
      .post('/api/v1/sessions/no-such-session/act')
      .set(f.runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'x1', name: 'ok_tool', arguments: {} }] })
      .expect(404);
    expect(seriesValue(await scrape(gw), 'gateway_act_duration_seconds_count', { outcome: 'ERROR' })).toBe(before + 1);
  });

  it('reports pending HITL requests and MCP service health when scraped', async () => {
    expect(seriesValue(await scrape(gw), 'gateway_hitl_requests_pending')).toBe(0);
    const sessionId = await newSession(f);
    // Past the agent's budget of 1 iteration: a CHECKPOINT_PAUSE request waits for a human.
    expect((await act(f, sessionId, 2, [{ id: 'p1', name: 'ok_tool' }])).body.status).toBe('INTERRUPTED');

    const services = gw.app.get(DataSource).getRepository(McpServiceEntity);
    const now = Date.now();
    const row = {
      kind: 'STATIC' as const,
      url: 'http://127.0.0.1:9/mcp',
      tenantId: null,
      scopeKey: '*',
      healthReason: null,
      createdAt: now,
      updatedAt: now,
    };
    await services.insert({
      ...row,
      id: '00000000-0000-4000-8000-000000000001',
      name: 'mcp_up',
      toolPrefix: 'up',
      health: 'UP',
    });
    await services.insert({
      ...row,
      id: '00000000-0000-4000-8000-000000000002',
      name: 'mcp_down',
      toolPrefix: 'down',
      health: 'DOWN',
    });
    await services.insert({
      ...row,
      id: '00000000-0000-4000-8000-000000000003',
      name: 'mcp_new',
      toolPrefix: 'new',
      health: 'UNKNOWN',
    });

    const text = await scrape(gw);
    expect(seriesValue(text, 'gateway_hitl_requests_pending')).toBe(1);
    expect(seriesValue(text, 'gateway_mcp_service_up', { service: 'mcp_up', scope: '*' })).toBe(1);
    expect(seriesValue(text, 'gateway_mcp_service_up', { service: 'mcp_down', scope: '*' })).toBe(0);
    expect(text).not.toContain('service="mcp_new"');
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const TOKEN = 'metrics-token-0123456789abcdef';
  let db: TestDatabase;
  let gw: TestGateway;
  let remote: RecordingHttpServer;

  beforeAll(async () => {
    remote = await startRemote();
    db = await createTestDatabaseUrl('sqlite');
    gw = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', METRICS_TOKEN: TOKEN });
  });

  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
    await db?.drop();
  });

  it('answers 401 UNAUTHENTICATED without the token or with another key, 200 with it', async () => {
    for (const headers of [{}, gw.admin, bearer('metrics-token-0123456789abcdeX'), { Authorization: TOKEN }]) {
      const res = await gw.http.get('/metrics').set(headers).expect(401);
      expect(res.body.error.code).toBe('UNAUTHENTICATED');
      expect(res.body.error.message).toContain('METRICS_TOKEN');
      expect(JSON.stringify(res.body)).not.toContain(TOKEN);
    }
    expect(await scrape(gw, bearer(TOKEN))).toContain('gateway_tool_calls_total');
  });

  it('counts act calls with the token set', async () => {
    const f = await setUp(gw, remote);
    await act(f, await newSession(f), 1, [{ id: 'e1', name: 'ok_tool' }]);
    const text = await scrape(gw, bearer(TOKEN));
    expect(
      seriesValue(text, 'gateway_tool_calls_total', { tool: 'ok_tool', status: 'COMPLETED', error_class: 'none' }),
    ).toBe(1);
    expect(seriesValue(text, 'gateway_act_duration_seconds_count', { outcome: 'COMPLETED' })).toBe(1);
  });
});
