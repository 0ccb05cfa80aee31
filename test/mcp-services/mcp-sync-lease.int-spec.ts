import { DataSource } from 'typeorm';
import { createKey, type TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, describeEachDialect, type TestDatabase } from '@test/support/test-database';
import { waitFor } from '@test/support/wait-for';
import { McpSyncLeaseRepository } from '@app/modules/mcp-services/mcp-sync-lease.repository';
import { startMcpSyncGateway } from './support/mcp-sync-gateway';
import { CatalogMcpServer, catalogTool } from './support/catalog-mcp.server';
import { McpSyncApi, type SyncReport } from './support/mcp-sync-fixtures';

describeEachDialect('one MCP sync at a time per service, across two gateway instances on one database', (dialect) => {
  const server = new CatalogMcpServer([catalogTool('one'), catalogTool('two')]);
  let db: TestDatabase;
  let one: TestGateway;
  let two: TestGateway;
  let serviceId: string;

  const syncOn = (gw: TestGateway) =>
    gw.http
      .post(`/api/v1/admin/mcp-services/${serviceId}/sync`)
      .set(gw.admin)
      .expect(200)
      .then((r) => r.body as SyncReport);
  const leaseRows = async () =>
    one.app.get(DataSource).query<unknown[]>('SELECT service_key, owner FROM mcp_sync_lease');

  beforeAll(async () => {
    await server.start();
    db = await createTestDatabaseUrl(dialect);
    one = await startMcpSyncGateway(db.url, { GATEWAY_INSTANCE_ID: 'gw-one' });
    two = await startMcpSyncGateway(db.url, { GATEWAY_INSTANCE_ID: 'gw-two' });
    serviceId = (await new McpSyncApi(one).createService({ name: 'shared', kind: 'STATIC', url: server.url })).id;
  });

  afterAll(async () => {
    server.release();
    await one?.close();
    await two?.close();
    await server.stop();
    await db?.drop();
  });

  afterEach(() => server.release());

  it('lets one instance sync while the other, triggered at the same moment, reports skipped', async () => {
    const listsBefore = server.listCalls;
    server.holdLists();
    const syncs = [syncOn(one), syncOn(two)];
    // The winner is listing (held); the loser answers without waiting for it.
    await waitFor(() => server.listCalls === listsBefore + 1, { description: 'the winner to list' });
    const loser = await Promise.race(syncs.map((p, i) => p.then((report) => ({ i, report }))));
    expect(loser.report).toMatchObject({ skipped: true, added: 0, updated: 0, disabled: 0, unchanged: 0 });
    expect(loser.report.skippedReason).toMatch(loser.i === 0 ? /gw-two/ : /gw-one/);
    server.release();
    const winner = await syncs[1 - loser.i];
    expect(winner).toMatchObject({ skipped: false, unchanged: 2 });
    expect(server.listCalls).toBe(listsBefore + 1);
    expect(await leaseRows()).toEqual([]);
  });

  it('runs concurrent syncs of one instance one after another, merging those that wait into one', async () => {
    const listsBefore = server.listCalls;
    server.holdLists();
    const syncs = [syncOn(one), syncOn(one), syncOn(one)];
    await waitFor(() => server.listCalls === listsBefore + 1, { description: 'the first sync to list' });
    server.release();
    const reports = await Promise.all(syncs);
    expect(reports.map((r) => r.skipped)).toEqual([false, false, false]);
    // Never two at once: whichever request arrived first ran; the ones that came while it ran waited for it and ran
    // after it (merged into one follow-up, sharing its report, when both were already waiting, which HTTP timing does
    // not guarantee). Each sync starts no earlier than the one before it finished (within 2 ms: the clocks'
    // resolution and rounding).
    const runs = [...new Map(reports.map((r) => [`${r.finishedAt}/${r.durationMs}`, r])).values()]
      .map((r) => ({ start: Date.parse(r.finishedAt) - r.durationMs, end: Date.parse(r.finishedAt) }))
      .sort((a, b) => a.end - b.end);
    for (let i = 1; i < runs.length; i++) expect(runs[i].start).toBeGreaterThanOrEqual(runs[i - 1].end - 2);
    expect(server.listCalls - listsBefore).toBeGreaterThanOrEqual(2);
    expect(server.listCalls - listsBefore).toBeLessThanOrEqual(3);
  });

  it('claims a lease by INSERT, refuses it while held, lets it be taken over once expired, and fences the old owner out', async () => {
    const leaseOne = one.app.get(McpSyncLeaseRepository);
    const leaseTwo = two.app.get(McpSyncLeaseRepository);
    const key = `test/${dialect}@lease`;
    const t0 = Date.now();
    await expect(leaseOne.claim(key, 'owner-1', t0, 1000)).resolves.toEqual({ acquired: true });
    await expect(leaseTwo.claim(key, 'owner-2', t0 + 10, 1000)).resolves.toEqual({
      acquired: false,
      owner: 'owner-1',
      expiresAt: t0 + 1000,
    });
    // Later than the expiry: the compare-and-set UPDATE takes it over.
    await expect(leaseTwo.claim(key, 'owner-2', t0 + 1001, 1000)).resolves.toEqual({ acquired: true });
    await expect(leaseOne.renew(key, 'owner-1', t0 + 5000)).resolves.toBe(false);
    await leaseOne.release(key, 'owner-1');
    await expect(leaseTwo.renew(key, 'owner-2', t0 + 5000)).resolves.toBe(true);
    await leaseTwo.release(key, 'owner-2');
    await expect(leaseOne.claim(key, 'owner-1', t0 + 1002, 1000)).resolves.toEqual({ acquired: true });
    await leaseOne.release(key, 'owner-1');
    expect(await leaseRows()).toEqual([]);
  });
  it("keeps the tools of a service deleted on one instance while the other's sync waited for tools/list DISABLED", async () => {
    const slow = await new CatalogMcpServer([catalogTool('ping', { annotations: { readOnlyHint: true } })]).start();
    try {
      const api = new McpSyncApi(one);
      const doomed = await api.createService({ name: 'doomed', kind: 'STATIC', url: slow.url, tenantId: 'acme' });
      const agentId = await api.createAgent('acme', `doomed-bot-${dialect}`);
      await api.bind(agentId, [(await api.toolsOf(doomed.id)).doomed_ping.id]);
      const runtime = await createKey(one, 'acme', 'runtime');
      expect(await api.execute(runtime, agentId, 'doomed_ping')).toMatchObject({ status: 'COMPLETED' });

      slow.holdLists();
      const listsBefore = slow.listCalls;
      const syncing = two.http
        .post(`/api/v1/admin/mcp-services/${doomed.id}/sync`)
        .set(two.admin)
        .then((res) => res);
      await waitFor(() => slow.listCalls > listsBefore, { description: 'the sync to ask for tools/list' });
      await one.http.delete(`/api/v1/admin/mcp-services/${doomed.id}`).set(one.admin).expect(200);
      expect((await api.toolsOf(doomed.id)).doomed_ping.status).toBe('DISABLED');
      slow.release();

      expect((await syncing).body).toMatchObject({ skipped: true, skippedReason: expect.stringMatching(/deleted/) });
      expect((await api.toolsOf(doomed.id)).doomed_ping.status).toBe('DISABLED');
      expect(await api.execute(runtime, agentId, 'doomed_ping')).toMatchObject({ status: 'FAILED' });
    } finally {
      await slow.stop();
    }
  });
  it("keeps the URL an admin gave a service on one instance while the other's sync waited for tools/list", async () => {
    const before = await new CatalogMcpServer([catalogTool('ping')], { label: 'before' }).start();
    const after = await new CatalogMcpServer([catalogTool('ping')], { label: 'after' }).start();
    try {
      const api = new McpSyncApi(one);
      const moved = await api.createService({ name: 'moved', kind: 'STATIC', url: before.url, tenantId: 'acme' });
      const agentId = await api.createAgent('acme', `moved-bot-${dialect}`);
      await api.bind(agentId, [(await api.toolsOf(moved.id)).moved_ping.id]);
      const runtime = await createKey(one, 'acme', 'runtime');

      before.holdLists();
      const listsBefore = before.listCalls;
      const syncing = two.http
        .post(`/api/v1/admin/mcp-services/${moved.id}/sync`)
        .set(two.admin)
        .then((res) => res);
      await waitFor(() => before.listCalls > listsBefore, { description: 'the sync to ask for tools/list' });
      await one.http
        .patch(`/api/v1/admin/mcp-services/${moved.id}`)
        .set(one.admin)
        .send({ url: after.url, headers: { 'X-Team': 'after' } })
        .expect(200);
      before.release();
      expect((await syncing).body).toMatchObject({ skipped: false, listedFrom: after.url });

      expect((await api.toolsOf(moved.id)).moved_ping).toMatchObject({ endpoint: after.url, status: 'ACTIVE' });
      expect(await api.execute(runtime, agentId, 'moved_ping')).toMatchObject({
        status: 'COMPLETED',
        content: 'after:ping:{}',
      });
      expect(after.requests.find((r) => r.method === 'tools/call')?.headers['x-team']).toBe('after');
    } finally {
      await Promise.all([before.stop(), after.stop()]);
    }
  });
});
