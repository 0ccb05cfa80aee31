import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { describeEachDialect, MYSQL_UNAVAILABLE_TODO, TEST_DIALECTS } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { AgentRunQueue } from '@app/modules/agent-runs/agent-run.queue';
import { AgentRunEntity, newQueuedRun } from '@app/modules/agent-runs/agent-run.entity';
import { openDatabase } from '@app/database/open-database';
import { GATEWAY_CONFIG } from '@app/config/gateway-config';

/** A queued run of `tenantId`, queued at `at`. */
const queuedRun = (tenantId: string, at: number): AgentRunEntity =>
  newQueuedRun(
    {
      id: randomUUID(),
      tenantId,
      sessionId: randomUUID(),
      agentId: randomUUID(),
      clientMessageId: randomUUID(),
      actIteration: 0,
    },
    at,
  );

/** The run queue's claim order: the least busy tenant first, however many runs another tenant queued before it. */
describeEachDialect('run queue: fair across tenants', (dialect) => {
  const suite = gatewayForSuite(dialect, { TASK_WORKERS: '0' });
  const queued = queuedRun;

  it('claims a quiet tenant’s run before the rest of a busy tenant’s burst, then each tenant oldest first', async () => {
    const repo = suite.gw.app.get(DataSource).getRepository(AgentRunEntity);
    const queue = suite.gw.app.get(AgentRunQueue);
    const base = Date.now() - 60_000;
    const burst = Array.from({ length: 30 }, (_, i) => queued('t-burst', base + i));
    const quiet = queued('t-quiet', base + 1000);
    await repo.save([...burst, quiet]);

    const first = await queue.claim('w-1', 60_000);
    const second = await queue.claim('w-2', 60_000);
    const third = await queue.claim('w-3', 60_000);
    // Both idle at first: the tenant waiting longest (the burst). Then the quiet tenant, though 29 older runs wait.
    expect([first?.id, second?.id, third?.id]).toEqual([burst[0].id, quiet.id, burst[1].id]);
    expect(second).toMatchObject({ status: 'RUNNING', owner: 'w-2', tenantId: 't-quiet' });
  });
});

/** RUNS_MAX_RUNNING_PER_TENANT: a tenant whose runs hold that many places waits for one, others go on. */
describeEachDialect('run queue: at most RUNS_MAX_RUNNING_PER_TENANT runs of a tenant at once', (dialect) => {
  const suite = gatewayForSuite(dialect, { TASK_WORKERS: '0', RUNS_MAX_RUNNING_PER_TENANT: '2' });

  it("claims no third run of a tenant while two run, and the other tenants' runs meanwhile", async () => {
    const repo = suite.gw.app.get(DataSource).getRepository(AgentRunEntity);
    const queue = suite.gw.app.get(AgentRunQueue);
    const base = Date.now() - 60_000;
    const slow = Array.from({ length: 4 }, (_, i) => queuedRun('t-slow-provider', base + i));
    const other = queuedRun('t-other', base + 100);
    await repo.save([...slow, other]);

    const claimed = [];
    for (let i = 0; i < 4; i++) claimed.push((await queue.claim(`w-${i}`, 60_000))?.id ?? null);
    expect(claimed).toEqual([slow[0].id, other.id, slow[1].id, null]);

    // One of its runs ends: its next one is claimed.
    await repo.update({ id: slow[0].id }, { status: 'COMPLETED', owner: null });
    expect((await queue.claim('w-4', 60_000))?.id).toBe(slow[2].id);
    expect(await queue.claim('w-5', 60_000)).toBeNull();
  });
});

/**
 * Two instances claiming at the same moment, each with its own connections (MySQL: SELECT ... FOR UPDATE SKIP LOCKED).
 * SQLite's instances are processes of their own (better-sqlite3 blocks its process while it waits for the file's
 * lock): `agent-run-instances.e2e-spec.ts` runs two of them.
 */
describe('run queue: one owner per run when two instances claim at once (MySQL)', () => {
  if (!TEST_DIALECTS.includes('mysql')) return it.todo(MYSQL_UNAVAILABLE_TODO);
  const suite = gatewayForSuite('mysql', { TASK_WORKERS: '0' });

  it('gives every run to exactly one of the claimers', async () => {
    const repo = suite.gw.app.get(DataSource).getRepository(AgentRunEntity);
    const base = Date.now() - 60_000;
    const runs = Array.from({ length: 40 }, (_, i) => queuedRun(`t-race-${i % 4}`, base + i));
    await repo.save(runs);
    const other = await openDatabase({ url: suite.db.url });
    try {
      const queues = [suite.gw.app.get(AgentRunQueue), new AgentRunQueue(other, suite.gw.app.get(GATEWAY_CONFIG))];
      const claimed: Array<{ id: string; owner: string }> = [];
      await Promise.all(
        queues.flatMap((queue, q) =>
          Array.from({ length: 3 }, async (_, w) => {
            const owner = `race-${q}-${w}`;
            // As a worker does: a claim the database picked as a deadlock victim is simply tried again.
            const claim = (): Promise<AgentRunEntity | null> =>
              queue.claim(owner, 60_000).catch((err: unknown) => (isDeadlock(err) ? claim() : Promise.reject(err)));
            for (let run = await claim(); run; run = await claim()) claimed.push({ id: run.id, owner });
          }),
        ),
      );
      expect(claimed.map((c) => c.id).sort()).toEqual(runs.map((r) => r.id).sort()); // each exactly once
      const stored = await repo.findBy(runs.map((r) => ({ id: r.id })));
      for (const row of stored) expect(row.owner).toBe(claimed.find((c) => c.id === row.id)!.owner);
    } finally {
      await other.destroy();
    }
  });
});

function isDeadlock(err: unknown): boolean {
  const errno =
    (err as { driverError?: { errno?: number }; errno?: number }).driverError?.errno ??
    (err as { errno?: number }).errno;
  return errno === 1213;
}
