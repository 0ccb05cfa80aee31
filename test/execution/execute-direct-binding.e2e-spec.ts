import { describeEachDialect } from '@test/support/test-database';
import { createKey, gatewayForSuite } from '@test/support/gateway-test-app';
import { DemoOrdersStore } from '@app/modules/demo-orders/demo-orders.store';
import { ToolVisibilityService } from '@app/modules/agent-config/visibility/tool-visibility.service';

/**
 * Issue 9 #1: being in the registry never makes a tool callable, only a binding does. The audit ran the demo's
 * unbound SIDE_EFFECT tool `cancel_order` through executeDirect by leaving `agentId` out.
 */
describeEachDialect('executeDirect checks every call against an agent', (dialect) => {
  const suite = gatewayForSuite(dialect, { DEMO_TOOLS_ENABLED: 'true' });
  let runtime: { Authorization: string };
  let unboundAgent: string;
  const cancel = { userId: 'u1', permissions: ['orders:write'], arguments: { orderId: 'o-1003', reason: 'audit' } };
  const statusOf = (tenantId: string, orderId: string) =>
    suite.gw.app.get(DemoOrdersStore).orders(tenantId).get(orderId)!.status;
  const toolId = async (name: string) =>
    (
      (await suite.gw.http.get(`/api/v1/admin/tools?q=${name}&pageSize=100`).set(suite.gw.admin).expect(200)).body
        .items as Array<{ id: string; name: string }>
    ).find((t) => t.name === name)!.id;
  const newAgent = async (tenantId: string, body: Record<string, unknown> = {}) =>
    (
      await suite.gw.http
        .post('/api/v1/admin/agents')
        .set(suite.gw.admin)
        .send({ name: `a_${Math.random().toString(36).slice(2)}`, tenantId, ...body })
        .expect(201)
    ).body.id as string;

  beforeAll(async () => {
    runtime = await createKey(suite.gw, 'acme', 'runtime');
    unboundAgent = await newAgent('acme');
  });

  it('answers 400 VALIDATION_FAILED naming agentId when it is missing, and runs nothing', async () => {
    const res = await suite.gw.http.post('/api/v1/tools/cancel_order/execute').set(runtime).send(cancel).expect(400);
    expect(res.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { fields: [{ field: 'agentId', problems: [expect.stringContaining('required')] }] },
    });
    expect(statusOf('acme', 'o-1003')).toBe('PLACED');
  });

  it('refuses a tool the named agent is not bound to (BOUND), and runs nothing', async () => {
    const res = await suite.gw.http
      .post('/api/v1/tools/cancel_order/execute')
      .set(runtime)
      .send({ ...cancel, agentId: unboundAgent })
      .expect(200);
    expect(res.body).toMatchObject({ status: 'FAILED', isError: true, attempts: 0, errorClass: 'NOT_VISIBLE' });
    expect(res.body.content).toContain('BOUND');
    expect(statusOf('acme', 'o-1003')).toBe('PLACED');
  });

  it("applies the agent's side-effect policy: a READ_ONLY agent cannot run cancel_order even when bound", async () => {
    const readOnly = await newAgent('acme', { sideEffectPolicy: 'READ_ONLY' });
    await suite.gw.http
      .put(`/api/v1/admin/agents/${readOnly}/tools`)
      .set(suite.gw.admin)
      .send({ toolIds: [await toolId('cancel_order')] })
      .expect(200);
    const res = await suite.gw.http
      .post('/api/v1/tools/cancel_order/execute')
      .set(runtime)
      .send({ ...cancel, agentId: readOnly })
      .expect(200);
    expect(res.body).toMatchObject({ status: 'FAILED', errorClass: 'NOT_VISIBLE' });
    expect(res.body.content).toContain('POLICY');
    expect(statusOf('acme', 'o-1003')).toBe('PLACED');
  });

  it("answers 404 for another tenant's agent, as for any other tenant's resource", async () => {
    const globexAgent = await newAgent('globex');
    await suite.gw.http
      .put(`/api/v1/admin/agents/${globexAgent}/tools`)
      .set(suite.gw.admin)
      .send({ toolIds: [await toolId('cancel_order')] })
      .expect(200);
    const res = await suite.gw.http
      .post('/api/v1/tools/cancel_order/execute')
      .set(runtime)
      .send({ ...cancel, agentId: globexAgent })
      .expect(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect(statusOf('acme', 'o-1003')).toBe('PLACED');
    expect(statusOf('globex', 'o-1003')).toBe('PLACED');
  });

  it('runs the tool for an agent bound to it', async () => {
    const bound = await newAgent('acme');
    await suite.gw.http
      .put(`/api/v1/admin/agents/${bound}/tools`)
      .set(suite.gw.admin)
      .send({ toolIds: [await toolId('get_order')] })
      .expect(200);
    const res = await suite.gw.http
      .post('/api/v1/tools/get_order/execute')
      .set(runtime)
      .send({ agentId: bound, userId: 'u1', permissions: [], arguments: { orderId: 'o-1003' } })
      .expect(200);
    expect(res.body).toMatchObject({ status: 'COMPLETED', isError: false });
    expect(JSON.parse(res.body.content)).toMatchObject({ orderId: 'o-1003', status: 'PLACED' });
  });

  it('never treats "no agent" as bound, whatever entry asks for the call-time decision', async () => {
    const visibility = suite.gw.app.get(ToolVisibilityService);
    const noAgent = { tenantId: 'acme', permissions: ['orders:write'] } as unknown as Parameters<
      ToolVisibilityService['decideForCall']
    >[0];
    const { tool, decision } = await visibility.decideForCall(noAgent, 'cancel_order');
    expect(tool?.name).toBe('cancel_order');
    expect(decision).toMatchObject({ visible: false, layer: 'BOUND' });
    const emptyAgent = { ...noAgent, agentId: '' };
    expect((await visibility.decideForCall(emptyAgent, 'cancel_order')).decision).toMatchObject({
      visible: false,
      layer: 'BOUND',
    });
  });

  it('documents agentId as required in Swagger', async () => {
    const doc = (await suite.gw.http.get('/docs-json').expect(200)).body;
    const ref: string =
      doc.paths['/api/v1/tools/{name}/execute'].post.requestBody.content['application/json'].schema.$ref;
    expect(doc.components.schemas[ref.split('/').pop()!].required).toEqual(
      expect.arrayContaining(['agentId', 'userId', 'permissions', 'arguments']),
    );
  });
});
