import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite, toolBody } from '@test/support/gateway-test-app';

/**
 * Two admins PATCH one tool at once. Each answer's `version` must be a version the tool really had with that
 * answer's content: a PATCH computed from a row another PATCH has changed since is never stored under the same
 * version (it is applied on top of the other, or refused with 409 CONCURRENT_MODIFICATION).
 */
describeEachDialect('concurrent PATCHes and DELETEs of one tool', (dialect) => {
  const suite = gatewayForSuite(dialect);
  const newTool = async () =>
    (
      await suite.gw.http
        .post('/api/v1/admin/tools')
        .set(suite.gw.admin)
        .send(toolBody({ tenantId: 'race' }))
        .expect(201)
    ).body.id as string;

  it('never answer two different changes with the same version', async () => {
    const id = await newTool();
    const patch = (body: Record<string, unknown>) =>
      suite.gw.http.patch(`/api/v1/admin/tools/${id}`).set(suite.gw.admin).send(body);
    const answers = await Promise.all([
      patch({ description: 'First admin.' }),
      patch({ timeoutMs: 4321 }),
      patch({ permissionTags: ['third'] }),
    ]);
    for (const a of answers) expect([200, 409]).toContain(a.status);
    const ok = answers.filter((a) => a.status === 200);
    expect(ok.length).toBeGreaterThan(0);
    for (const a of answers.filter((x) => x.status === 409)) expect(a.body.error.code).toBe('CONCURRENT_MODIFICATION');
    const versions = ok.map((a) => a.body.version as number);
    expect(new Set(versions).size).toBe(versions.length);
    const stored = (await suite.gw.http.get(`/api/v1/admin/tools/${id}`).set(suite.gw.admin).expect(200)).body;
    expect(stored.version).toBe(1 + ok.length);
    const last = ok.find((a) => a.body.version === stored.version)!;
    const { checklist: _c, ...lastTool } = last.body;
    expect({ ...lastTool, updatedAt: stored.updatedAt }).toEqual(stored);
  });

  it('concurrent DELETEs all answer 200 with the tool RETIRED, retired once (one new version)', async () => {
    const id = await newTool();
    const del = () => suite.gw.http.delete(`/api/v1/admin/tools/${id}`).set(suite.gw.admin);
    const answers = await Promise.all([del(), del(), del()]);
    expect(answers.map((a) => [a.status, a.body.status, a.body.version])).toEqual(Array(3).fill([200, 'RETIRED', 2]));
  });
});
