import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { AgentConfigService } from '@app/modules/agent-config/agent-config.service';
import { SchedulerRegistry } from '@nestjs/schedule';
import {
  KNOWLEDGE_BASE_DELETION_JOB,
  KnowledgeBaseDeletionJob,
} from '@app/modules/knowledge-bases/knowledge-base-deletion.job';
import { createAgent, createKnowledgeBase } from './support/knowledge-fixtures';

describeEachDialect('a knowledge-base deletion cut short, and its bindings', (dialect) => {
  // Not scheduled here (the test runs the job itself): KNOWLEDGE_DELETION_INTERVAL_MS=0 turns it off.
  const suite = gatewayForSuite(dialect, { KNOWLEDGE_DELETION_INTERVAL_MS: '0' });
  afterEach(() => jest.restoreAllMocks());

  it('the deletion job takes out a binding written while the deletion began, when the second unbinding never ran', async () => {
    const { gw } = suite;
    expect(gw.app.get(SchedulerRegistry).doesExist('interval', KNOWLEDGE_BASE_DELETION_JOB)).toBe(false);
    const agentId = await createAgent(gw, { name: 'crash-bind', tenantId: 'acme' });
    const kb = await createKnowledgeBase(gw, { name: 'crash-bound', tenantId: 'acme' });

    const agents = gw.app.get(AgentConfigService);
    const forget = agents.forgetKnowledgeBase.bind(agents);
    jest
      .spyOn(agents, 'forgetKnowledgeBase')
      // The deletion's first unbinding; then another admin binds the base (its check and re-check both see it).
      .mockImplementationOnce(async (tenantId, id) => {
        await forget(tenantId, id);
        await gw.http
          .put(`/api/v1/admin/agents/${agentId}/knowledge-bases`)
          .set(gw.admin)
          .send({ knowledgeBaseIds: [kb] })
          .expect(200);
      })
      // The second unbinding fails once the base's transaction has committed (as a process that dies there).
      .mockRejectedValueOnce(new Error('killed midway'));
    await gw.http.delete(`/api/v1/admin/knowledge-bases/${kb}`).set(gw.admin).expect(200);
    await gw.http.get(`/api/v1/admin/knowledge-bases/${kb}`).set(gw.admin).expect(404);
    const bound = await gw.http.get(`/api/v1/admin/agents/${agentId}`).set(gw.admin).expect(200);
    expect(bound.body.knowledgeBaseIds).toContain(kb);

    // The job finishes the deletion a minute later, its unbinding included.
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + 61_000);
    await gw.app.get(KnowledgeBaseDeletionJob).run();
    jest.spyOn(Date, 'now').mockRestore();

    const agent = await gw.http.get(`/api/v1/admin/agents/${agentId}`).set(gw.admin).expect(200);
    expect(agent.body.knowledgeBaseIds).not.toContain(kb);
  });
});
