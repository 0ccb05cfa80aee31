import { DataSource } from 'typeorm';
import { EXACT_COLLATION, EXACT_IDENTIFIER_COLUMNS } from '@migrations/1764462800000-ExactIdentifierCollation';
import { EXACT_ENTITY_ID_COLUMNS } from '@migrations/1764464600000-ExactEntityIdCollation';
import { createKey, gatewayForSuite, sessionWithTool, toolBody } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { createKnowledgeBase } from '@test/knowledge-bases/support/knowledge-fixtures';

const SECRETS = '/api/v1/admin/tenants';

/**
 * `acme` and `ACME` are two tenants, and `call_Ab` and `call_aB` two tool calls, on both databases. MySQL's
 * case-insensitive collation made them one in every `WHERE tenant_id = ?` (an admin of `ACME` listed and bound
 * `acme`'s knowledge bases and overwrote its secrets) until ExactIdentifierCollation.
 */
describeEachDialect('identifiers that differ only in letter case are different', (dialect) => {
  const remote = new RecordingHttpServer();
  const suite = gatewayForSuite(dialect, { SECRETS_KEY: 'c3'.repeat(32), OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
  let victimAdmin: { Authorization: string };
  let attackerAdmin: { Authorization: string };

  beforeAll(async () => {
    remote.handler = (req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ echoed: req.body }));
    };
    await remote.start();
    victimAdmin = await createKey(suite.gw, 'acme', 'admin');
    attackerAdmin = await createKey(suite.gw, 'ACME', 'admin');
  });
  afterAll(() => remote.stop());

  it('a tenant admin sees, binds and overwrites nothing of the tenant whose id differs in case', async () => {
    const { gw } = suite;
    const victimBase = await createKnowledgeBase(gw, { name: 'acme-hr', tenantId: 'acme' });
    await gw.http
      .post('/api/v1/admin/agents')
      .set(victimAdmin)
      .send({ name: 'acme-agent', tenantId: 'acme' })
      .expect(201);
    await gw.http
      .put(`${SECRETS}/acme/secrets/DB_PASSWORD`)
      .set(victimAdmin)
      .send({ value: 'acme-secret' })
      .expect(201);
    const victimSecret = () =>
      gw.app
        .get(DataSource)
        .query<Array<{ v: string; u: number }>>(
          "SELECT value_encrypted AS v, updated_at AS u FROM tenant_secret WHERE tenant_id = 'acme'",
        );
    const before = await victimSecret();

    expect((await gw.http.get('/api/v1/admin/knowledge-bases').set(attackerAdmin).expect(200)).body.items).toEqual([]);
    expect((await gw.http.get('/api/v1/admin/agents').set(attackerAdmin).expect(200)).body.items).toEqual([]);
    expect((await gw.http.get(`${SECRETS}/ACME/secrets`).set(attackerAdmin).expect(200)).body.items).toEqual([]);
    const own = (
      await gw.http.post('/api/v1/admin/agents').set(attackerAdmin).send({ name: 'spy', tenantId: 'ACME' }).expect(201)
    ).body.id;
    await gw.http
      .put(`/api/v1/admin/agents/${own}/knowledge-bases`)
      .set(attackerAdmin)
      .send({ knowledgeBaseIds: [victimBase] })
      .expect(404);
    // Its own secret of the same name is its own row; the victim's stays as it was.
    await gw.http.put(`${SECRETS}/ACME/secrets/DB_PASSWORD`).set(attackerAdmin).send({ value: 'mine' }).expect(201);
    await gw.http.delete(`${SECRETS}/ACME/secrets/DB_PASSWORD`).set(attackerAdmin).expect(200);
    expect(await victimSecret()).toEqual(before);
    expect((await gw.http.get(`${SECRETS}/acme/secrets`).set(victimAdmin).expect(200)).body.items).toHaveLength(1);
    // Tool names are per tenant: the same name in both is no clash.
    for (const key of [victimAdmin, attackerAdmin])
      await gw.http
        .post('/api/v1/admin/tools')
        .set(key)
        .send(toolBody({ name: 'lookup_order' }))
        .expect(201);
  });

  it('two tool calls whose ids differ only in case are two calls, each run and journaled', async () => {
    const { gw } = suite;
    const runtime = await createKey(gw, 'casey', 'runtime');
    const { sessionId: session } = await sessionWithTool(gw, runtime, 'casey', {
      name: 'echo_case',
      endpoint: remote.url('/echo'),
      httpMethod: 'POST',
    });
    const act = (iteration: number, id: string, q: string) =>
      gw.http
        .post(`/api/v1/sessions/${session}/act`)
        .set(runtime)
        .send({ iteration, toolCalls: [{ id, name: 'echo_case', arguments: { q } }] })
        .expect(200);

    const first = (await act(1, 'call_Ab', 'first')).body.results[0];
    const second = (await act(2, 'call_aB', 'second')).body.results[0];

    expect(first.status).toBe('COMPLETED');
    expect(second.status).toBe('COMPLETED');
    expect(second.content).toContain('second');
    expect(remote.requests.map((r) => JSON.parse(r.body))).toEqual([{ q: 'first' }, { q: 'second' }]);
    const journal = await gw.http.get(`/api/v1/admin/sessions/${session}/journal`).set(gw.admin).expect(200);
    expect(journal.body.items.map((e: { toolCallId: string }) => e.toolCallId).sort()).toEqual(['call_Ab', 'call_aB']);
  });

  it("a session's id in other letter case is no session: 404 for its reads, act and close, on both databases", async () => {
    const { gw } = suite;
    const runtime = await createKey(gw, 'upcase', 'runtime');
    const { sessionId } = await sessionWithTool(gw, runtime, 'upcase', {
      name: 'echo_upcase',
      endpoint: remote.url('/echo'),
      httpMethod: 'POST',
    });
    const other = sessionId.toUpperCase();
    expect(other).not.toBe(sessionId);
    const requestsBefore = remote.requests.length;
    await gw.http.get(`/api/v1/sessions/${other}`).set(runtime).expect(404);
    await gw.http
      .post(`/api/v1/sessions/${other}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'call_1', name: 'echo_upcase', arguments: { q: 'x' } }] })
      .expect(404);
    await gw.http.delete(`/api/v1/sessions/${other}`).set(runtime).expect(404);
    expect(remote.requests.length).toBe(requestsBefore);
    expect((await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200)).body.status).toBe('ACTIVE');
  });

  if (dialect === 'mysql')
    it('every identifier column is compared exactly on MySQL, including those of tables added later', async () => {
      const rows = await suite.gw.app.get(DataSource).query<Array<{ t: string; c: string; collation: string }>>(
        `SELECT TABLE_NAME AS t, COLUMN_NAME AS c, COLLATION_NAME AS collation FROM information_schema.COLUMNS
          WHERE TABLE_SCHEMA = DATABASE()
            AND (COLUMN_NAME IN ('tenant_id', 'scope_key', 'tool_call_id', 'parent_tool_call_id', 'client_message_id', 'user_id')
              OR (TABLE_NAME = 'tenant_secret' AND COLUMN_NAME = 'name'))`,
      );
      const listed = [
        ...Object.entries(EXACT_IDENTIFIER_COLUMNS).flatMap(([t, cs]) => cs.map((c) => `${t}.${c}`)),
        'model_provider.scope_key', // added exact by AddModelProviderNameKey
        'session_event_outbox.tenant_id', // created exact by CreateSessionEventOutbox
        'knowledge_base_deletion.tenant_id', // created exact by CreateKnowledgeBaseDeletion
      ];
      expect(rows.map((r) => `${r.t}.${r.c}`).sort()).toEqual(listed.sort());
      expect(rows.filter((r) => r.collation !== EXACT_COLLATION)).toEqual([]);
    });

  if (dialect === 'mysql')
    it('every id column (an entity id, or a reference to one) is compared exactly on MySQL, tables added later too', async () => {
      const rows = await suite.gw.app.get(DataSource).query<Array<{ t: string; c: string; collation: string }>>(
        `SELECT TABLE_NAME AS t, COLUMN_NAME AS c, COLLATION_NAME AS collation FROM information_schema.COLUMNS
          WHERE TABLE_SCHEMA = DATABASE() AND DATA_TYPE IN ('varchar', 'char')
            AND (COLUMN_NAME = 'id' OR COLUMN_NAME LIKE '%\\_id')`,
      );
      const listed = Object.entries(EXACT_ENTITY_ID_COLUMNS).flatMap(([t, cs]) => cs.map((c) => `${t}.${c}`));
      expect(rows.length).toBeGreaterThan(listed.length);
      expect(rows.map((r) => `${r.t}.${r.c}`)).toEqual(expect.arrayContaining(listed));
      expect(rows.filter((r) => r.collation !== EXACT_COLLATION)).toEqual([]);
    });

  it("an agent's or a tool's id in other letter case is no agent or tool (404), on both databases", async () => {
    const { gw } = suite;
    const { agentId, toolId } = await sessionWithTool(gw, await createKey(gw, 'idcase', 'runtime'), 'idcase', {
      name: 'echo_idcase',
      endpoint: remote.url('/echo'),
      httpMethod: 'POST',
    });
    await gw.http.get(`/api/v1/admin/agents/${agentId}`).set(gw.admin).expect(200);
    await gw.http.get(`/api/v1/admin/agents/${agentId.toUpperCase()}`).set(gw.admin).expect(404);
    await gw.http.get(`/api/v1/admin/tools/${toolId}`).set(gw.admin).expect(200);
    await gw.http.get(`/api/v1/admin/tools/${toolId.toUpperCase()}`).set(gw.admin).expect(404);
  });
});
