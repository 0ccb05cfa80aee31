import { QueryFailedError } from 'typeorm';
import { describeEachDialect } from '@test/support/test-database';
import { createKey, gatewayForSuite, sessionWithTool } from '@test/support/gateway-test-app';
import { AgentSessionRepository } from '@app/modules/loop-acting/sessions/agent-session.repository';

/*
 * A built-in whose statement the gateway's database refuses as busy or unreachable (a deadlock victim, SQLite BUSY, a
 * lost connection) is made again within the call's budget when it may be (READ_ONLY, IDEMPOTENT), and the model reads
 * what happened and what to do, not the driver's message. It FAILED at once with the driver's text.
 */
describeEachDialect('a built-in whose statement the database refuses as busy', (dialect) => {
  const suite = gatewayForSuite(dialect);
  let runtime: { Authorization: string };
  let sessionId: string;

  beforeAll(async () => {
    runtime = await createKey(suite.gw, 'acme', 'runtime');
    let agentId: string;
    ({ agentId, sessionId } = await sessionWithTool(suite.gw, runtime, 'acme', { name: 'lookup' }));
    const todo = (await suite.gw.http.get('/api/v1/admin/tools?q=UPDATE_TODO_LIST').set(suite.gw.admin).expect(200))
      .body.items[0];
    await suite.gw.http
      .post(`/api/v1/admin/agents/${agentId}/tools`)
      .set(suite.gw.admin)
      .send({ toolId: todo.id })
      .expect(200);
  });
  afterEach(() => jest.restoreAllMocks());

  let iteration = 0;
  const updateTodoList = (id: string, content: string) =>
    suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({
        iteration: ++iteration,
        toolCalls: [{ id, name: 'UPDATE_TODO_LIST', arguments: { items: [{ content, status: 'pending' }] } }],
      })
      .expect(200);

  /** The session repository's todo-list write fails once with `error`, then writes. */
  const failTodoWriteOnce = (error: Error) => {
    const sessions = suite.gw.app.get(AgentSessionRepository);
    return jest.spyOn(sessions, 'setTodoList').mockRejectedValueOnce(error);
  };

  it('makes an IDEMPOTENT built-in again after a deadlock: it completes on its second attempt', async () => {
    const write = failTodoWriteOnce(
      new QueryFailedError(
        'UPDATE agent_session ...',
        [],
        Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), {
          code: 'ER_LOCK_DEADLOCK',
          errno: 1213,
        }),
      ),
    );

    const res = await updateTodoList('t1', 'ship it');

    expect(res.body.results[0]).toMatchObject({ status: 'COMPLETED', isError: false, attempts: 2 });
    expect(write).toHaveBeenCalledTimes(2);
    const session = (await suite.gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200)).body;
    expect(session.todoList).toEqual([{ id: '1', content: 'ship it', status: 'pending' }]);
  });

  it('tells the model the database was busy, with its code only, when every attempt is refused', async () => {
    const sessions = suite.gw.app.get(AgentSessionRepository);
    jest
      .spyOn(sessions, 'setTodoList')
      .mockRejectedValue(
        Object.assign(new Error('database is locked: row 42 of secret_table'), { code: 'SQLITE_BUSY' }),
      );

    const res = await updateTodoList('t2', 'never stored');

    const result = res.body.results[0];
    expect(result).toMatchObject({ status: 'FAILED', isError: true, attempts: 3 });
    expect(result.content).toContain("UPDATE_TODO_LIST could not use the gateway's database, busy or unreachable");
    expect(result.content).toContain('SQLITE_BUSY');
    expect(result.content).toContain('make the call again');
    expect(result.content).not.toContain('secret_table');
  });

  it('leaves an error that does not come from the database as it was: one attempt, its own message', async () => {
    // A socket error's code (ECONNRESET) is one a lost database connection shares; it alone says nothing of the database.
    failTodoWriteOnce(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' }));

    const res = await updateTodoList('t3', 'not retried');

    expect(res.body.results[0]).toMatchObject({ status: 'FAILED', isError: true, attempts: 1 });
    expect(res.body.results[0].content).toContain('read ECONNRESET');
  });
});
