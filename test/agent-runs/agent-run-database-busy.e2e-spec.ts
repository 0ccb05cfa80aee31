import { DataSource, QueryFailedError } from 'typeorm';
import { AgentMessagesRepository } from '@app/modules/agent-runs/agent-messages.repository';
import { AgentRunQueue } from '@app/modules/agent-runs/agent-run.queue';
import { AgentConfigService } from '@app/modules/agent-config/agent-config.service';
import { ModelProvidersService } from '@app/modules/model-providers/model-providers.service';
import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { waitFor } from '@test/support/wait-for';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

/**
 * A statement of a run's step that the database refuses as busy or unreachable (a deadlock victim, a lock wait
 * timeout, a lost connection), which says nothing about the run: the run goes back to the queue and continues from
 * its last checkpoint, its tool calls that ran reused, never run again. It FAILED ("the gateway failed to continue the
 * run: Deadlock found..."), as if the gateway had broken.
 */
describeEachDialect('agent runs: a step the database refuses as busy or unreachable', (dialect) => {
  // A short run lease: the test where giving the run back fails too waits for it to expire.
  const suite = gatewayForSuite(dialect, { ...AGENT_LOOP_ENV, RUN_LEASE_MS: '3000' });
  const fx = new AgentLoopFixture(() => suite.gw);
  let ledger: { id: string; name: string };

  beforeAll(async () => {
    await fx.start();
    ledger = await fx.tool('ledger_write', { sideEffect: 'SIDE_EFFECT' });
  });
  afterAll(() => fx.stop());
  afterEach(() => jest.restoreAllMocks());

  /** A session whose model writes to the ledger once (toolCallId w1), then answers "Written.". */
  const ledgerSession = async () => {
    const agent = await fx.agent([ledger.id]);
    fx.model.script(
      agent.model,
      { toolCalls: [{ id: 'w1', name: 'ledger_write', arguments: '{"q":"entry-1"}' }] },
      { text: 'Written.' },
    );
    return { agent, sessionId: await fx.session(agent.id) };
  };

  /** Fails, once, the checkpoint of the session's tool results: the tool call ran and its journal entry is committed. */
  const failResultsCheckpointOnce = (sessionId: string, error: () => Error) => {
    const messages = suite.gw.app.get(AgentMessagesRepository);
    const append = messages.append.bind(messages);
    const injected = { count: 0 };
    jest.spyOn(messages, 'append').mockImplementation(async (m, ref, rows) => {
      if (injected.count === 0 && ref.sessionId === sessionId && rows.some((r) => r.role === 'tool')) {
        injected.count++;
        throw error();
      }
      return append(m, ref, rows);
    });
    return injected;
  };

  /** The tool's own count of the writes it received from the session. */
  const ledgerWrites = (sessionId: string) =>
    fx.requestsTo('/ledger_write').filter((r) => r.headers['x-session-id'] === sessionId);

  const finishedStatuses = async (sessionId: string) =>
    (await fx.events(sessionId)).filter((e) => e.type === 'run.finished').map((e) => e.data.status);

  it('goes back to the queue after a deadlock and completes; its tool call ran once, and it never FAILED', async () => {
    const { agent, sessionId } = await ledgerSession();
    const injected = failResultsCheckpointOnce(sessionId, () =>
      driverError('Deadlock found when trying to get lock; try restarting transaction', {
        code: 'ER_LOCK_DEADLOCK',
        errno: 1213,
      }),
    );

    const res = await fx.send(sessionId, 'm1', 'Write entry-1').expect(200);

    expect(injected.count).toBe(1);
    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'Written.', iterations: 2 });
    expect(res.body.error).toBeUndefined();
    expect(ledgerWrites(sessionId)).toHaveLength(1);
    expect(await finishedStatuses(sessionId)).toEqual(['COMPLETED']);
    // The model was not asked again for the round it had answered: the answer was checkpointed before the deadlock.
    expect(fx.model.requestsFor(agent.model)).toHaveLength(2);
    const toolMessage = fx.model.requestsFor(agent.model)[1].body.messages.find((m) => m.role === 'tool');
    expect(toolMessage).toMatchObject({ tool_call_id: 'w1' });
    expect(toolMessage!.content).toContain('"ok":true');
    expect((await fx.messages(sessionId)).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect((await fx.sessionView(sessionId)).status).toBe('ACTIVE');
  });

  it('FAILS on an unexpected error with an incident id, never the error text (it may name SQL or host paths)', async () => {
    const { sessionId } = await ledgerSession();
    failResultsCheckpointOnce(
      sessionId,
      () => new TypeError("Cannot read properties of undefined (reading 'rows') at /srv/app/dist/x.js"),
    );

    const res = await fx.send(sessionId, 'm1', 'Write entry-1').expect(200);

    expect(res.body.status).toBe('FAILED');
    expect(res.body.error).toMatch(
      /^the gateway failed to continue the run after an unexpected error \(incident [0-9a-f-]{36}; the gateway's log has the details\); send the message again to start a new run, and report the incident if it recurs$/,
    );
    expect(res.body.error).not.toContain('/srv/app');
  });

  it('does not read its provider as deleted when the database could not be read (a lock wait timeout)', async () => {
    const { agent, sessionId } = await ledgerSession();
    const providers = suite.gw.app.get(ModelProvidersService);
    const loadVisible = providers.loadVisible.bind(providers);
    let injected = 0;
    jest.spyOn(providers, 'loadVisible').mockImplementation(async (tenantId, id) => {
      if (injected === 0 && id === agent.providerId) {
        injected++;
        throw driverError('Lock wait timeout exceeded; try restarting transaction', {
          code: 'ER_LOCK_WAIT_TIMEOUT',
          errno: 1205,
        });
      }
      return loadVisible(tenantId, id);
    });

    const res = await fx.send(sessionId, 'm1', 'Write entry-1').expect(200);

    expect(injected).toBe(1);
    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'Written.' });
    expect(ledgerWrites(sessionId)).toHaveLength(1);
    expect(await finishedStatuses(sessionId)).toEqual(['COMPLETED']);
  });

  it('continues once its lease expires when giving it back to the queue fails too (the database gone)', async () => {
    const { sessionId } = await ledgerSession();
    const lost = () =>
      driverError('Connection lost: The server closed the connection.', { code: 'PROTOCOL_CONNECTION_LOST' });
    const injected = failResultsCheckpointOnce(sessionId, lost);
    const queue = suite.gw.app.get(AgentRunQueue);
    let failedRelease: string | undefined;
    jest.spyOn(queue, 'release').mockImplementationOnce(async (_runId, owner) => {
      failedRelease = owner;
      throw lost();
    });

    const runId: string = (await fx.send(sessionId, 'm1', 'Write entry-1', false).expect(202)).body.runId;
    const owner = await waitFor(
      async () => {
        if (failedRelease) return failedRelease;
        const run = await fx.run(sessionId, runId);
        if (run.status !== 'RUNNING') throw new Error(`the run stopped ${run.status} (${run.error}), not given back`);
        return null;
      },
      { timeoutMs: 15_000, description: 'the worker to give the run back' },
    );

    // Not given back: still held by the worker that failed, until its lease (no longer renewed) expires.
    const [row] = await suite.gw.app.get(DataSource).query('SELECT status, owner FROM agent_run WHERE id = ?', [runId]);
    expect(row).toMatchObject({ status: 'RUNNING', owner });
    expect(await fx.untilRun(sessionId, runId, 'COMPLETED')).toMatchObject({ answer: 'Written.' });
    expect(injected.count).toBe(1);
    expect(ledgerWrites(sessionId)).toHaveLength(1);
    expect(await finishedStatuses(sessionId)).toEqual(['COMPLETED']);
  });

  it('SUB_AGENT_CALL whose sub-agent could not be read (the database busy) delegates on its next attempt, once', async () => {
    const builtins = await fx.builtinToolIds();
    const helper = await fx.agent([]);
    const lead = await fx.agent([builtins.SUB_AGENT_CALL, builtins.CHECK_TASK_STATUS], { subAgentIds: [helper.id] });
    const helperName = (await suite.gw.http.get(`/api/v1/admin/agents/${helper.id}`).set(suite.gw.admin).expect(200))
      .body.name as string;
    fx.model.script(
      lead.model,
      {
        toolCalls: [
          { id: 'delegate', name: 'SUB_AGENT_CALL', arguments: JSON.stringify({ agent: helperName, task: 'count' }) },
        ],
      },
      { text: 'It said 1 2 3.' },
    );
    fx.model.script(helper.model, { text: '1 2 3' });
    const sessionId = await fx.session(lead.id);
    const agents = suite.gw.app.get(AgentConfigService);
    const loadAgent = agents.loadAgent.bind(agents);
    let injected = 0;
    jest.spyOn(agents, 'loadAgent').mockImplementation(async (auth, id) => {
      // The first read of the sub-agent is the delegation's check that the lead may name it.
      if (injected === 0 && id === helper.id) {
        injected++;
        throw driverError('database is locked', { code: 'SQLITE_BUSY' });
      }
      return loadAgent(auth, id);
    });

    const res = await fx.send(sessionId, 'm1', 'delegate').expect(200);

    expect(injected).toBe(1);
    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'It said 1 2 3.' });
    const toolMessage = fx.model.requestsFor(lead.model)[1].body.messages.find((m) => m.role === 'tool');
    expect(toolMessage!.content).toBe('1 2 3');
    const tasks = (
      await suite.gw.http.get(`/api/v1/admin/tasks?parentSessionId=${sessionId}`).set(suite.gw.admin).expect(200)
    ).body.items;
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({ status: 'COMPLETED', answer: '1 2 3', parentToolCallId: 'delegate' });
    expect(fx.model.requestsFor(helper.model)).toHaveLength(1);
  });
});

/** A driver's error as TypeORM throws it (a QueryFailedError with the driver's error as `driverError`). */
function driverError(message: string, fields: { code: string; errno?: number }): QueryFailedError {
  return new QueryFailedError('UPDATE ...', [], Object.assign(new Error(message), fields));
}
