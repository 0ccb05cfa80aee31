import { createKey, gatewayForSuite, type TestGateway } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';

describeEachDialect('session events: durable, ordered per session, tenant-scoped', (dialect) => {
  const suite = gatewayForSuite(dialect);
  let gw: TestGateway;
  let runtime: { Authorization: string };
  let sessionId: string;

  beforeAll(async () => {
    gw = suite.gw;
    runtime = await createKey(gw, 't-events');
    const agent = await gw.http
      .post('/api/v1/admin/agents')
      .set(gw.admin)
      .send({ tenantId: 't-events', name: 'events-agent' })
      .expect(201);
    const session = await gw.http
      .post('/api/v1/sessions')
      .set(runtime)
      .send({ agentId: agent.body.id, userId: 'u1', permissions: [], task: { description: 'Summarise the report' } })
      .expect(201);
    sessionId = session.body.id;
    expect(session.body.task).toEqual({ description: 'Summarise the report' });
  });

  it('numbers concurrent appends 1..n without gaps or duplicates', async () => {
    const store = gw.app.get(SessionEventsStore);
    const seqs = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        store.append({ tenantId: 't-events', sessionId, type: 'todo.updated', data: { i } }),
      ),
    );
    expect([...seqs].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });

  it('pages with after/limit and answers nextAfter', async () => {
    const first = await gw.http.get(`/api/v1/sessions/${sessionId}/events?limit=5`).set(runtime).expect(200);
    expect(first.body.items.map((e: { seq: number }) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(first.body.items[0]).toEqual({
      seq: 1,
      type: 'todo.updated',
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      data: expect.objectContaining({ i: expect.any(Number) }),
    });
    expect(first.body.nextAfter).toBe(5);
    const rest = await gw.http.get(`/api/v1/sessions/${sessionId}/events?after=5&limit=100`).set(runtime).expect(200);
    expect(rest.body.items.map((e: { seq: number }) => e.seq)).toEqual([6, 7, 8, 9, 10, 11, 12]);
    const none = await gw.http.get(`/api/v1/sessions/${sessionId}/events?after=12`).set(runtime).expect(200);
    expect(none.body).toEqual({ items: [], nextAfter: 12 });
  });

  it('refuses a bad page request with a 400 naming the parameter', async () => {
    const res = await gw.http.get(`/api/v1/sessions/${sessionId}/events?limit=5000`).set(runtime).expect(400);
    expect(JSON.stringify(res.body)).toContain('limit');
  });

  it("another tenant's key gets 404", async () => {
    const other = await createKey(gw, 't-other');
    await gw.http.get(`/api/v1/sessions/${sessionId}/events`).set(other).expect(404);
  });
});
