import { gatewayForSuite } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

/**
 * An agent with webSearchMode ALWAYS: the round that answers the user's message makes the model search (its
 * `tool_choice` names web_search); the rounds after the search leave the choice to the model, which may answer.
 */
describe('the agent loop under webSearchMode ALWAYS', () => {
  const env: Record<string, string> = { ...AGENT_LOOP_ENV };
  let search: RecordingHttpServer;
  beforeAll(async () => {
    search = await new RecordingHttpServer().start();
    search.handler = (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ results: [{ title: 'Depot hours', url: 'https://example.com/h', snippet: '8-18' }] }));
    };
    env.WEB_SEARCH_URL = search.url('/search');
  });
  const suite = gatewayForSuite('sqlite', env);
  const fx = new AgentLoopFixture(() => suite.gw);

  beforeAll(async () => {
    await fx.start();
    await suite.gw.http
      .put(`/api/v1/admin/tenants/${fx.tenantId}/capabilities`)
      .set(suite.gw.admin)
      .send({ webSearch: true })
      .expect(200);
  });
  afterAll(async () => {
    await fx.stop();
    await search?.stop();
  });

  it('forces the search in the round that answers a user message only, so the model can answer after it', async () => {
    const agent = await fx.agent([], { webSearchMode: 'ALWAYS' });
    const sessionId = await fx.session(agent.id);
    fx.model.script(
      agent.model,
      { toolCalls: [{ id: 'ws_1', name: 'web_search', arguments: '{"query":"depot hours"}' }] },
      { text: 'The depot opens at 8.' },
      { toolCalls: [{ id: 'ws_2', name: 'web_search', arguments: '{"query":"depot address"}' }] },
      { text: 'It is on Main Street.' },
    );

    const first = await fx.send(sessionId, 'ws-1', 'When does the depot open?').expect(200);
    const second = await fx.send(sessionId, 'ws-2', 'Where is it?').expect(200);

    expect(first.body).toMatchObject({ status: 'COMPLETED', answer: 'The depot opens at 8.' });
    expect(second.body).toMatchObject({ status: 'COMPLETED', answer: 'It is on Main Street.' });
    expect(search.requests).toHaveLength(2);
    const forced = { type: 'function', function: { name: 'web_search' } };
    expect(fx.model.requestsFor(agent.model).map((r) => r.body.tool_choice)).toEqual([
      forced,
      undefined,
      forced,
      undefined,
    ]);
  });
});
