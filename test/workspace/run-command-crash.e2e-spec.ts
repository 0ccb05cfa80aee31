import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabaseUrl, describeEachDialect, type TestDatabase } from '@test/support/test-database';
import { startGatewayProcess, type GatewayProcess } from '@test/support/gateway-process';
import { waitFor } from '@test/support/wait-for';
import { describeWithBubblewrap, processesNaming } from '@test/sandbox/sandbox-runner.fixture';
import { act, expectStatus } from '@test/crash/support/gateway-runtime.seed';
import { workspaceRootForSuite } from './workspace-test-kit';

const LEASE_MS = 1000;
const TENANT = 't-cmd-crash';

/*
 * A gateway killed with SIGKILL while RUN_COMMAND runs: the sandbox dies with it (--die-with-parent), and the
 * call, a SIDE_EFFECT left STARTED by a dead owner, comes back as an UNKNOWN_OUTCOME request: never re-run.
 */
describeWithBubblewrap('RUN_COMMAND and a gateway crash', () => {
  describeEachDialect('a command whose gateway died ends UNKNOWN_OUTCOME, not re-run', (dialect) => {
    let db: TestDatabase;
    const gateways: GatewayProcess[] = [];
    const root = workspaceRootForSuite();

    beforeAll(async () => {
      db = await createTestDatabaseUrl(dialect);
    });
    afterAll(async () => {
      for (const gw of gateways) await gw.kill();
      await db?.drop();
    });

    it('asks a human instead of running the command again', async () => {
      const start = () =>
        startGatewayProcess({
          databaseUrl: db.url,
          env: { JOURNAL_LEASE_MS: String(LEASE_MS), WORKSPACE_ROOT: root },
        }).then((gw) => (gateways.push(gw), gw));
      const first = await start();
      const tools = expectStatus(
        await first.call('GET', '/api/v1/admin/tools?q=RUN_COMMAND', undefined, first.admin),
        200,
        'tools',
      );
      const runCommand = tools.items.find((t: { name: string }) => t.name === 'RUN_COMMAND');
      const agent = expectStatus(
        await first.call(
          'POST',
          '/api/v1/admin/agents',
          { name: 'crash-agent', tenantId: TENANT, sideEffectPolicy: 'ALLOW' },
          first.admin,
        ),
        201,
        'agent',
      );
      expectStatus(
        await first.call('PUT', `/api/v1/admin/agents/${agent.id}/tools`, { toolIds: [runCommand.id] }, first.admin),
        200,
        'bind',
      );
      const key = expectStatus(
        await first.call(
          'POST',
          '/api/v1/admin/api-keys',
          { name: 'rt', role: 'runtime', tenantId: TENANT },
          first.admin,
        ),
        201,
        'key',
      );
      const runtime = { Authorization: `Bearer ${key.key}` };
      const session = expectStatus(
        await first.call(
          'POST',
          '/api/v1/sessions',
          { agentId: agent.id, userId: 'u1', permissions: [], capabilities: ['SANDBOX', 'FILE_ROOM'] },
          runtime,
        ),
        201,
        'session',
      );
      const token = `crash-token-${dialect}-${Date.now()}`;
      const call = {
        id: 'cmd-1',
        name: 'RUN_COMMAND',
        arguments: { command: `echo ran >> marker; sleep 20 # ${token}` },
      };
      const pending = act(first, runtime, session.id, 1, [call]).catch(() => 'connection lost');
      const marker = join(root, 'sessions', TENANT, session.id, 'marker');
      await waitFor(() => existsSync(marker), { timeoutMs: 20_000, description: 'the command started' });
      await first.kill();
      expect(await pending).toBe('connection lost');
      // The sandbox died with its gateway (--die-with-parent): nothing of the command keeps running.
      await waitFor(() => processesNaming(token).length === 0, { timeoutMs: 10_000, description: 'no stray process' });

      const second = await start();
      // While the dead owner's lease lasts the call is TOOL_CALL_IN_PROGRESS (409); then the journal decides.
      const again = await waitFor(
        async () => {
          const res = await act(second, runtime, session.id, 2, [call]);
          return res.status === 200 ? res.body : null;
        },
        { timeoutMs: 15_000, intervalMs: 200, description: 'the lease of the dead owner expired' },
      );
      expect(again.status).toBe('INTERRUPTED');
      expect(again.hitlRequest).toMatchObject({ requestType: 'UNKNOWN_OUTCOME', toolCallId: 'cmd-1' });
      expect(readFileSync(marker, 'utf8')).toBe('ran\n');
      // Two gateway processes start (each builds and migrates), as in test/crash: more than Jest's 30 s on a loaded
      // machine. Nothing here is timed.
    }, 120_000);
  });
});
