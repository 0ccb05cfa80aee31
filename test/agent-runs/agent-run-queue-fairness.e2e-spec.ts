import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { AgentRunQueue } from '@app/modules/agent-runs/agent-run.queue';
import { AgentRunEntity, newQueuedRun } from '@app/modules/agent-runs/agent-run.entity';

/** The run queue's claim order: the least busy tenant first, however many runs another tenant queued before it. */
describeEachDialect('run queue: fair across tenants', (dialect) => {
  const suite = gatewayForSuite(dialect, { TASK_WORKERS: '0' });
  const queued = (tenantId: string, at: number): AgentRunEntity =>
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
