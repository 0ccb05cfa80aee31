import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { AgentConfigRepository } from '@app/modules/agent-config/agent-config.repository';
import { KnowledgeBasesRepository } from '@app/modules/knowledge-bases/knowledge-bases.repository';
import { createKnowledgeBase } from './support/knowledge-fixtures';

describeEachDialect('deleting a knowledge base while its agents are rebound', (dialect) => {
  const suite = gatewayForSuite(dialect);
  afterEach(() => jest.restoreAllMocks());

  it("keeps a binding made after the deletion listed the base's agents", async () => {
    const { gw } = suite;
    const agentId = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'rebound', tenantId: 'acme' }).expect(201)
    ).body.id as string;
    const gone = await createKnowledgeBase(gw, { name: 'retired', tenantId: 'acme' });
    const added = await createKnowledgeBase(gw, { name: 'fresh', tenantId: 'acme' });
    const bind = (knowledgeBaseIds: string[]) =>
      gw.http
        .put(`/api/v1/admin/agents/${agentId}/knowledge-bases`)
        .set(gw.admin)
        .send({ knowledgeBaseIds })
        .expect(200);
    await bind([gone]);

    // The deletion lists the agents bound to `gone`; before it unbinds them, another admin binds `fresh` too.
    const repo = gw.app.get(AgentConfigRepository);
    const listing = repo.agentsListing.bind(repo);
    jest.spyOn(repo, 'agentsListing').mockImplementationOnce(async (m, list, id) => {
      const listed = await listing(m, list, id);
      await bind([gone, added]);
      return listed;
    });
    await gw.http.delete(`/api/v1/admin/knowledge-bases/${gone}`).set(gw.admin).expect(200);

    const agent = await gw.http.get(`/api/v1/admin/agents/${agentId}`).set(gw.admin).expect(200);
    expect(agent.body.knowledgeBaseIds).toEqual([added]);
  });

  it('never leaves an agent bound to a base deleted while the binding was checked', async () => {
    const { gw } = suite;
    const agentId = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'late-bind', tenantId: 'acme' }).expect(201)
    ).body.id as string;
    const kept = await createKnowledgeBase(gw, { name: 'kept', tenantId: 'acme' });
    const doomed = await createKnowledgeBase(gw, { name: 'doomed', tenantId: 'acme' });

    // The binding finds both bases; before it writes them, another admin deletes one.
    const repo = gw.app.get(KnowledgeBasesRepository);
    const find = repo.findBasesOfTenant.bind(repo);
    jest.spyOn(repo, 'findBasesOfTenant').mockImplementationOnce(async (tenantId, ids) => {
      const found = await find(tenantId, ids);
      await gw.http.delete(`/api/v1/admin/knowledge-bases/${doomed}`).set(gw.admin).expect(200);
      return found;
    });
    const res = await gw.http
      .put(`/api/v1/admin/agents/${agentId}/knowledge-bases`)
      .set(gw.admin)
      .send({ knowledgeBaseIds: [kept, doomed] });
    expect(res.status).toBe(404);
    expect(res.body.error.message).toContain(doomed);

    const agent = await gw.http.get(`/api/v1/admin/agents/${agentId}`).set(gw.admin).expect(200);
    expect(agent.body.knowledgeBaseIds).not.toContain(doomed);
  });
});
