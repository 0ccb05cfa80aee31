import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { QueryFailedError } from 'typeorm';
import { describeEachDialect } from '@test/support/test-database';
import { createKey, gatewayForSuite, sessionWithTool } from '@test/support/gateway-test-app';
import { AgentSessionRepository } from '@app/modules/loop-acting/sessions/agent-session.repository';
import { WorkspaceEvents } from '@app/modules/workspace/workspace.events';
import { WorkspaceLocator } from '@app/modules/workspace/workspace.locator';
import { FILE_TOOLS, workspaceRootForSuite, workspaceTenant } from '../workspace/workspace-test-kit';

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

/*
 * A SIDE_EFFECT built-in is not made again when the database refuses a statement of it: its effect may have happened
 * (the file edited before its event was written). The model must not be told to make the call again.
 */
describeEachDialect('a side-effecting built-in whose statement the database refuses as busy', (dialect) => {
  const root = workspaceRootForSuite();
  const suite = gatewayForSuite(dialect, { WORKSPACE_ROOT: root });
  afterEach(() => jest.restoreAllMocks());

  it('tells the model the call may have taken effect, not to make it again, when its event could not be written', async () => {
    const t = await workspaceTenant(suite.gw, 't-busy-edit', FILE_TOOLS);
    const sessionId = await t.newSession(['FILE_ROOM']);
    await t.call(sessionId, 'WRITE_FILE', { path: 'a.txt', content: 'x = 1' });
    jest
      .spyOn(suite.gw.app.get(WorkspaceEvents), 'fileWritten')
      .mockRejectedValueOnce(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }));

    const edit = await t.call(sessionId, 'EDIT_FILE', { path: 'a.txt', oldText: 'x = 1', newText: 'x = 1\ny = 2' });

    // Made once: the edit is in the file. Made again, as the model was told, it would add y = 2 a second time.
    expect(edit).toMatchObject({ status: 'FAILED', isError: true, attempts: 1 });
    const dir = suite.gw.app.get(WorkspaceLocator).dirOf('t-busy-edit', sessionId);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('x = 1\ny = 2');
    expect(edit.content).toContain("EDIT_FILE could not use the gateway's database, busy or unreachable (SQLITE_BUSY)");
    expect(edit.content).not.toContain('make the call again');
    expect(edit.content).toContain('it may have taken effect');
  });
});
