import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';
import { createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';
import { waitFor } from '@test/support/wait-for';

/** A gateway where a platform get_order arrived after tenant acme's own, and acme's agent bound to both. */
interface Shadowing {
  gw: TestGateway;
  runtime: { Authorization: string };
  agentId: string;
  ownId: string;
  platformId: string;
}

/**
 * Starts, for a describe block, a gateway on which tenant acme registered get_order before the demo tools brought a
 * platform get_order, with acme's agent bound to both; `retireOwn` retires acme's tool afterwards.
 */
function shadowingForSuite(retireOwn: boolean): Shadowing {
  const s = {} as Shadowing;
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabaseUrl('sqlite');
    const first = await startTestGateway(db.url);
    s.ownId = (
      await first.http
        .post('/api/v1/admin/tools')
        .set(first.admin)
        .send(toolBody({ name: 'get_order', tenantId: 'acme' }))
        .expect(201)
    ).body.id;
    await first.close();
    const gw = (s.gw = await startTestGateway(db.url, { DEMO_TOOLS_ENABLED: 'true' }));
    s.platformId = await waitFor(async () => {
      const res = await gw.http.get('/api/v1/admin/tools?pageSize=500').set(gw.admin).expect(200);
      return res.body.items.find(
        (t: { name: string; tenantId: string | null }) => t.name === 'get_order' && !t.tenantId,
      )?.id as string | undefined;
    });
    s.runtime = await createKey(gw, 'acme', 'runtime');
    s.agentId = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'bot', tenantId: 'acme' }).expect(201)
    ).body.id;
    await gw.http
      .put(`/api/v1/admin/agents/${s.agentId}/tools`)
      .set(gw.admin)
      .send({ toolIds: [s.ownId, s.platformId] })
      .expect(200);
    if (retireOwn) await gw.http.delete(`/api/v1/admin/tools/${s.ownId}`).set(gw.admin).expect(200);
  }, 60_000);
  afterAll(async () => {
    await s.gw?.close();
    await db?.drop();
  });
  return s;
}

/** The tool-specs decisions of acme's agent, by tool id. */
async function decisionsOf(
  s: Shadowing,
  format?: string,
): Promise<{ names: string[]; decisions: Record<string, { visible: boolean; layer: string; reason: string }> }> {
  const res = await s.gw.http
    .post(`/api/v1/agents/${s.agentId}/tool-specs`)
    .set(s.runtime)
    .send({ userId: 'u1', permissions: ['orders:read'], ...(format && { format }), explain: true })
    .expect(200);
  return {
    names: res.body.tools.map((t: { name?: string; function?: { name: string } }) => t.name ?? t.function!.name),
    decisions: Object.fromEntries(res.body.decisions.map((d: { toolId: string }) => [d.toolId, d])),
  };
}

/**
 * A @FeignTool deployed after a tenant registered a tool of the same name becomes a platform tool of that name (the
 * scanner checks platform-wide names only). Calls by that name reach the tenant's own tool, so the platform one must
 * not be emitted beside it: providers refuse a tools list with two tools of one name.
 */
describe('a platform tool shadowed by a tenant tool of the same name', () => {
  const s = shadowingForSuite(false);

  it.each(['openai', 'anthropic', 'gemini'])(
    '%s: one get_order, the tenant’s own, the other explained',
    async (format) => {
      const { names, decisions } = await decisionsOf(s, format);
      expect(names.filter((n: string) => n === 'get_order')).toHaveLength(1);
      expect(decisions[s.ownId]).toMatchObject({ visible: true, layer: 'EMITTED' });
      expect(decisions[s.platformId]).toMatchObject({ visible: false, layer: 'PERMITTED' });
      expect(decisions[s.platformId].reason).toContain(s.ownId);
    },
  );
});

describe('a platform tool shadowed by a retired tenant tool of the same name', () => {
  const s = shadowingForSuite(true);

  it('the platform tool’s reason says the holder is retired and how to free the name (retiring it does not)', async () => {
    const { decisions } = await decisionsOf(s);
    expect(decisions[s.ownId]).toMatchObject({ visible: false, layer: 'EXISTS' });
    expect(decisions[s.platformId]).toMatchObject({ visible: false, layer: 'PERMITTED' });
    expect(decisions[s.platformId].reason).toContain(s.ownId);
    expect(decisions[s.platformId].reason).toContain('retired');
    expect(decisions[s.platformId].reason).not.toContain('retire one of them');
  });
});
