import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';
import { createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';
import { waitFor } from '@test/support/wait-for';

/**
 * A @FeignTool deployed after a tenant registered a tool of the same name becomes a platform tool of that name (the
 * scanner checks platform-wide names only). Calls by that name reach the tenant's own tool, so the platform one must
 * not be emitted beside it: providers refuse a tools list with two tools of one name.
 */
describe('a platform tool shadowed by a tenant tool of the same name', () => {
  let db: TestDatabase;
  let gw: TestGateway | undefined;
  let runtime: { Authorization: string };
  let agentId: string;
  let ownId: string;
  let platformId: string;

  beforeAll(async () => {
    db = await createTestDatabaseUrl('sqlite');
    const first = await startTestGateway(db.url);
    ownId = (
      await first.http
        .post('/api/v1/admin/tools')
        .set(first.admin)
        .send(toolBody({ name: 'get_order', tenantId: 'acme' }))
        .expect(201)
    ).body.id;
    await first.close();
    gw = await startTestGateway(db.url, { DEMO_TOOLS_ENABLED: 'true' });
    const g = gw;
    platformId = await waitFor(async () => {
      const res = await g.http.get('/api/v1/admin/tools?pageSize=500').set(g.admin).expect(200);
      return res.body.items.find(
        (t: { name: string; tenantId: string | null }) => t.name === 'get_order' && !t.tenantId,
      )?.id as string | undefined;
    });
    runtime = await createKey(gw, 'acme', 'runtime');
    agentId = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'bot', tenantId: 'acme' }).expect(201)
    ).body.id;
    await gw.http
      .put(`/api/v1/admin/agents/${agentId}/tools`)
      .set(gw.admin)
      .send({ toolIds: [ownId, platformId] })
      .expect(200);
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await db?.drop();
  });

  it.each(['openai', 'anthropic', 'gemini'])(
    '%s: one get_order, the tenant’s own, the other explained',
    async (format) => {
      const res = await gw!.http
        .post(`/api/v1/agents/${agentId}/tool-specs`)
        .set(runtime)
        .send({ userId: 'u1', permissions: ['orders:read'], format, explain: true })
        .expect(200);
      const names = res.body.tools.map(
        (t: { name?: string; function?: { name: string } }) => t.name ?? t.function!.name,
      );
      expect(names.filter((n: string) => n === 'get_order')).toHaveLength(1);
      const decisions = Object.fromEntries(res.body.decisions.map((d: { toolId: string }) => [d.toolId, d]));
      expect(decisions[ownId]).toMatchObject({ visible: true, layer: 'EMITTED' });
      expect(decisions[platformId]).toMatchObject({ visible: false, layer: 'PERMITTED' });
      expect(decisions[platformId].reason).toContain(ownId);
    },
  );
});

describe('a platform tool shadowed by a retired tenant tool of the same name', () => {
  let db: TestDatabase;
  let gw: TestGateway | undefined;
  let runtime: { Authorization: string };
  let agentId: string;
  let ownId: string;
  let platformId: string;

  beforeAll(async () => {
    db = await createTestDatabaseUrl('sqlite');
    const first = await startTestGateway(db.url);
    ownId = (
      await first.http
        .post('/api/v1/admin/tools')
        .set(first.admin)
        .send(toolBody({ name: 'get_order', tenantId: 'acme' }))
        .expect(201)
    ).body.id;
    await first.close();
    gw = await startTestGateway(db.url, { DEMO_TOOLS_ENABLED: 'true' });
    const g = gw;
    platformId = await waitFor(async () => {
      const res = await g.http.get('/api/v1/admin/tools?pageSize=500').set(g.admin).expect(200);
      return res.body.items.find(
        (t: { name: string; tenantId: string | null }) => t.name === 'get_order' && !t.tenantId,
      )?.id as string | undefined;
    });
    runtime = await createKey(gw, 'acme', 'runtime');
    agentId = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'bot', tenantId: 'acme' }).expect(201)
    ).body.id;
    await gw.http
      .put(`/api/v1/admin/agents/${agentId}/tools`)
      .set(gw.admin)
      .send({ toolIds: [ownId, platformId] })
      .expect(200);
    await gw.http.delete(`/api/v1/admin/tools/${ownId}`).set(gw.admin).expect(200);
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await db?.drop();
  });

  it('the platform tool’s reason says the holder is retired and how to free the name (retiring it does not)', async () => {
    const res = await gw!.http
      .post(`/api/v1/agents/${agentId}/tool-specs`)
      .set(runtime)
      .send({ userId: 'u1', permissions: ['orders:read'], explain: true })
      .expect(200);
    const decisions = Object.fromEntries(res.body.decisions.map((d: { toolId: string }) => [d.toolId, d]));
    expect(decisions[ownId]).toMatchObject({ visible: false, layer: 'EXISTS' });
    expect(decisions[platformId]).toMatchObject({ visible: false, layer: 'PERMITTED' });
    expect(decisions[platformId].reason).toContain(ownId);
    expect(decisions[platformId].reason).toContain('retired');
    expect(decisions[platformId].reason).not.toContain('retire one of them');
  });
});
