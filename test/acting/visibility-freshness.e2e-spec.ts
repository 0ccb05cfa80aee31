import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { createKey, gatewayForSuite, toolBody } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';

/**
 * TOOL_SPECS_CACHE_CHECK_MS > 0 lets the visibility cache skip its version read for a while; that may delay
 * another instance's admin writes, never this instance's own: an admin write answered before a call arrives
 * decides that call.
 */
describeEachDialect(
  'visibility re-check after an admin write on the same instance (TOOL_SPECS_CACHE_CHECK_MS=60000)',
  (dialect) => {
    const remote = new RecordingHttpServer();
    const suite = gatewayForSuite(dialect, {
      TOOL_SPECS_CACHE_CHECK_MS: '60000',
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      TOOL_MAX_ATTEMPTS: '1',
    });
    let runtime: { Authorization: string };
    let agentId: string;
    let sessionId: string;
    let iteration = 0;

    const createTool = async (name: string) =>
      (
        await suite.gw.http
          .post('/api/v1/admin/tools')
          .set(suite.gw.admin)
          .send(toolBody({ name, tenantId: 'fresh', endpoint: remote.url(`/${name}`) }))
          .expect(201)
      ).body.id as string;
    const bind = (toolIds: string[]) =>
      suite.gw.http.put(`/api/v1/admin/agents/${agentId}/tools`).set(suite.gw.admin).send({ toolIds }).expect(200);
    const act = async (name: string) => {
      iteration++;
      const res = await suite.gw.http
        .post(`/api/v1/sessions/${sessionId}/act`)
        .set(runtime)
        .send({ iteration, toolCalls: [{ id: `call-${iteration}`, name, arguments: { q: 'x' } }] })
        .expect(200);
      return res.body.results[0] as { status: string; errorClass?: string; content: string };
    };

    beforeAll(async () => {
      await remote.start();
      runtime = await createKey(suite.gw, 'fresh');
      agentId = (
        await suite.gw.http
          .post('/api/v1/admin/agents')
          .set(suite.gw.admin)
          .send({ name: 'fresh-bot', tenantId: 'fresh' })
          .expect(201)
      ).body.id;
    });
    afterAll(() => remote.stop());

    it('a tool created and bound after the view was cached is called, and a disabled one is refused, at once', async () => {
      const first = await createTool('first_tool');
      await bind([first]);
      sessionId = (
        await suite.gw.http
          .post('/api/v1/sessions')
          .set(runtime)
          .send({ agentId, userId: 'u1', permissions: [] })
          .expect(201)
      ).body.id;
      expect(await act('first_tool')).toMatchObject({ status: 'COMPLETED' }); // caches the tenant's view

      const second = await createTool('second_tool');
      await bind([first, second]);
      expect(await act('second_tool')).toMatchObject({ status: 'COMPLETED' });

      await suite.gw.http
        .patch(`/api/v1/admin/tools/${first}`)
        .set(suite.gw.admin)
        .send({ enabled: false })
        .expect(200);
      expect(await act('first_tool')).toMatchObject({ status: 'FAILED', errorClass: 'NOT_VISIBLE' });
      expect(remote.requests.filter((r) => r.url === '/first_tool')).toHaveLength(1);
    });
  },
);
