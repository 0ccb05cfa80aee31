import { gatewayForSuite } from '@test/support/gateway-test-app';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

/** A tenant's model provider goes through the tenants' outbound guard (OUTBOUND_PLATFORM_ONLY_HOSTS). */
describe("the agent loop calls a tenant's model through the tenants' outbound guard", () => {
  const suite = gatewayForSuite('sqlite', { ...AGENT_LOOP_ENV, OUTBOUND_PLATFORM_ONLY_HOSTS: '127.0.0.0/8' });
  const fx = new AgentLoopFixture(() => suite.gw);

  beforeAll(() => fx.start());
  afterAll(() => fx.stop());

  it('fails the run when the provider is on a platform-only address, and the model hears nothing', async () => {
    const agent = await fx.agent([]);
    const sessionId = await fx.session(agent.id);
    fx.model.script(agent.model, { text: 'never asked' });
    const res = await fx.send(sessionId, 'msg-1', 'Hello?').expect(200);
    expect(res.body).toMatchObject({ status: 'FAILED' });
    expect(res.body.error).toMatch(/reserved for the platform's own tools/);
    expect(fx.model.requestsFor(agent.model)).toEqual([]);
  });
});
