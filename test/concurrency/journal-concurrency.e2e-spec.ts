import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import { GatewayProcess, startGatewayProcess } from '@test/support/gateway-process';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import {
  act,
  expectStatus,
  openSession,
  seedAgent,
  SeededAgent,
  ToolCall,
} from '@test/crash/support/gateway-runtime.seed';

/*
 * Issue 4, "Prove it": concurrent first submissions of one toolCallId resolve to one execution through the
 * journal's primary key, also across gateway processes. MariaDB: two instances on one database, 50 submissions;
 * SQLite (one process owns the file): one instance, 25 submissions.
 */

const REMOTE_DELAY_MS = 300;
const TOOL = 'transfer_funds';

describeEachDialect('journal concurrency: many submissions of one toolCallId at once', (dialect) => {
  const instanceCount = dialect === 'mysql' ? 2 : 1;
  const submissions = dialect === 'mysql' ? 50 : 25;
  let db: TestDatabase;
  let remote: RecordingHttpServer;
  let gateways: GatewayProcess[] = [];
  let seeded: SeededAgent;
  let sessionId: string;

  const start = (n: number) => startGatewayProcess({ databaseUrl: db.url, instanceId: `concurrent-${n}` });

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    remote.handler = async (req, res) => {
      // Slow enough that the submissions overlap the one call that runs.
      await new Promise((resolve) => setTimeout(resolve, REMOTE_DELAY_MS));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ transferred: JSON.parse(req.body).amount, n: req.n }));
    };
    db = await createTestDatabaseUrl(dialect);
    gateways = [await start(0)]; // migrates the database before any other instance starts
    const [more, seed] = await Promise.all([
      Promise.all(Array.from({ length: instanceCount - 1 }, (_v, i) => start(i + 1))),
      seedAgent(gateways[0], 'conc', [
        {
          name: TOOL,
          description: 'moves money: must never run twice',
          parameters: { type: 'object', properties: { amount: { type: 'integer' } }, required: ['amount'] },
          serviceType: 'HTTP',
          httpMethod: 'POST',
          endpoint: remote.url('/transfer'),
          sideEffect: 'SIDE_EFFECT',
        },
      ]),
    ]);
    gateways.push(...more);
    seeded = seed;
    sessionId = await openSession(gateways[0], seeded);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(gateways.map((gw) => gw.stop()));
    await remote?.stop();
    await db?.drop();
  });

  it(`${submissions} concurrent submissions across ${instanceCount} instance(s): one execution, each answer the result or in progress`, async () => {
    const call: ToolCall = { id: 'call-transfer', name: TOOL, arguments: { amount: 100 } };
    const responses = await Promise.all(
      Array.from({ length: submissions }, (_v, i) =>
        act(gateways[i % gateways.length], seeded.runtime, sessionId, 1, [call]),
      ),
    );

    expect(remote.requests).toHaveLength(1);
    const stored = remote.requests.length === 1 ? JSON.stringify({ transferred: 100, n: 1 }) : '(ran more than once)';
    for (const res of responses) {
      if (res.status === 409) {
        expect(res.body.error.code).toBe('TOOL_CALL_IN_PROGRESS');
        continue;
      }
      expect(res).toMatchObject({
        status: 200,
        body: {
          status: 'COMPLETED',
          results: [
            expect.objectContaining({ toolCallId: call.id, status: 'COMPLETED', isError: false, content: stored }),
          ],
        },
      });
    }
    // The one submission that ran the call says so; every other result came from the journal.
    expect(responses.filter((r) => r.status === 200 && r.body.results[0].reused === false)).toHaveLength(1);

    // Afterwards every instance answers with the stored result, and the journal holds one finished entry.
    for (const gw of gateways) {
      const again = await act(gw, seeded.runtime, sessionId, 1, [call]);
      expect(again.body.results[0]).toMatchObject({ status: 'COMPLETED', reused: true, content: stored });
    }
    const journal = expectStatus(
      await gateways[0].call('GET', `/api/v1/admin/sessions/${sessionId}/journal`, undefined, gateways[0].admin),
      200,
      'journal',
    );
    expect(journal.items).toEqual([
      expect.objectContaining({
        toolCallId: call.id,
        state: 'COMPLETED',
        attempts: 1,
        // The instance that won, and its claim token.
        owner: expect.stringMatching(/^concurrent-\d#/),
      }),
    ]);
    expect(remote.requests).toHaveLength(1);
  });
});
