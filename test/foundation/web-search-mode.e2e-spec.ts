import { describeEachDialect } from '@test/support/test-database';
import { createKey, gatewayForSuite } from '@test/support/gateway-test-app';

/**
 * Issue 9 #11: `ALWAYS` behaved exactly like `AUTO`. Both offer web_search when the tenant capability and a
 * provider allow it; under AUTO the model decides whether to search, under ALWAYS the answer also carries a
 * `toolChoice` (in the requested model's format) that makes the model call web_search.
 */
describeEachDialect('webSearchMode ALWAYS vs AUTO in tool-specs', (dialect) => {
  const suite = gatewayForSuite(dialect, { WEB_SEARCH_URL: 'http://127.0.0.1:9/search' });
  let runtime: { Authorization: string };
  const agents: Record<string, string> = {};

  beforeAll(async () => {
    runtime = await createKey(suite.gw, 'acme', 'runtime');
    await suite.gw.http
      .put('/api/v1/admin/tenants/acme/capabilities')
      .set(suite.gw.admin)
      .send({ webSearch: true })
      .expect(200);
    for (const mode of ['AUTO', 'ALWAYS'] as const) {
      agents[mode] = (
        await suite.gw.http
          .post('/api/v1/admin/agents')
          .set(suite.gw.admin)
          .send({ name: `ws_${mode}`, tenantId: 'acme', webSearchMode: mode })
          .expect(201)
      ).body.id;
    }
  });

  const specs = async (mode: 'AUTO' | 'ALWAYS', body: Record<string, unknown> = {}) =>
    (
      await suite.gw.http
        .post(`/api/v1/agents/${agents[mode]}/tool-specs`)
        .set(runtime)
        .send({ userId: 'u1', permissions: [], ...body })
        .expect(200)
    ).body;
  const names = (tools: Array<{ function: { name: string } }>) => tools.map((t) => t.function.name);

  it('AUTO offers web_search and leaves the choice to the model (no toolChoice)', async () => {
    const body = await specs('AUTO');
    expect(names(body.tools)).toContain('web_search');
    expect(body.toolChoice).toBeUndefined();
  });

  it('ALWAYS offers web_search and forces it, in each model format', async () => {
    const openai = await specs('ALWAYS');
    expect(names(openai.tools)).toContain('web_search');
    expect(openai.toolChoice).toEqual({ type: 'function', function: { name: 'web_search' } });
    expect((await specs('ALWAYS', { format: 'anthropic' })).toolChoice).toEqual({ type: 'tool', name: 'web_search' });
    expect((await specs('ALWAYS', { format: 'gemini' })).toolChoice).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['web_search'] },
    });
  });

  it('explains the difference in the web_search decision', async () => {
    const decision = (body: { decisions: Array<{ name: string; layer: string; reason: string }> }) =>
      body.decisions.find((d) => d.name === 'web_search')!;
    expect(decision(await specs('ALWAYS', { explain: true }))).toMatchObject({
      layer: 'EMITTED',
      reason: expect.stringContaining('ALWAYS'),
    });
    expect(decision(await specs('AUTO', { explain: true }))).toMatchObject({
      layer: 'EMITTED',
      reason: expect.not.stringContaining('ALWAYS'),
    });
  });

  it("lets the runtime narrow ALWAYS: AUTO offers without forcing, DISABLED hides; AUTO can't be widened to ALWAYS", async () => {
    const narrowed = await specs('ALWAYS', { webSearchMode: 'AUTO' });
    expect(names(narrowed.tools)).toContain('web_search');
    expect(narrowed.toolChoice).toBeUndefined();
    const disabled = await specs('ALWAYS', { webSearchMode: 'DISABLED' });
    expect(names(disabled.tools)).not.toContain('web_search');
    expect(disabled.toolChoice).toBeUndefined();
    expect((await specs('AUTO', { webSearchMode: 'ALWAYS' })).toolChoice).toBeUndefined();
  });

  it('forces nothing under ALWAYS when the tenant capability is off (web_search is hidden)', async () => {
    await suite.gw.http
      .put('/api/v1/admin/tenants/acme/capabilities')
      .set(suite.gw.admin)
      .send({ webSearch: false })
      .expect(200);
    try {
      const body = await specs('ALWAYS');
      expect(names(body.tools)).not.toContain('web_search');
      expect(body.toolChoice).toBeUndefined();
    } finally {
      await suite.gw.http
        .put('/api/v1/admin/tenants/acme/capabilities')
        .set(suite.gw.admin)
        .send({ webSearch: true })
        .expect(200);
    }
  });
});
