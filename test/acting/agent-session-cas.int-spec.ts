import type { DataSource } from 'typeorm';
import { openDatabase } from '@app/database/open-database';
import { HotSql } from '@app/database/hot-sql';
import { AgentSessionRepository } from '@app/modules/loop-acting/sessions/agent-session.repository';
import type { AgentSessionEntity } from '@app/modules/loop-acting/sessions/agent-session.entity';
import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';

const session = (id: string): AgentSessionEntity => ({
  id,
  tenantId: 'acme',
  agentId: '00000000-0000-4000-8000-0000000000aa',
  userId: 'u',
  permissions: [],
  capabilities: [],
  status: 'ACTIVE',
  iteration: 1,
  iterationBudget: 10,
  hitlPending: false,
  hitlRequest: null,
  pendingBatch: null,
  todoList: [],
  activeSkill: null,
  task: null,
  lockVersion: 0,
  createdAt: 1,
  updatedAt: 1,
});

/** The session's compare-and-set, and the writes that must commit with it (the HITL request of an interrupt). */
describeEachDialect('AgentSessionRepository.compareAndSet', (dialect) => {
  let db: TestDatabase;
  let ds: DataSource;
  let sessions: AgentSessionRepository;
  const marks = async () =>
    (await ds.query('SELECT client_message_id FROM resume_record ORDER BY client_message_id')).map(
      (r: { client_message_id: string }) => r.client_message_id,
    );
  const alongside = (mark: string) => (tx: { run(sql: string, params: unknown[]): Promise<number> }) =>
    tx
      .run("INSERT INTO resume_record (session_id, client_message_id, state, created_at) VALUES (?, ?, 'DONE', 1)", [
        's',
        mark,
      ])
      .then(() => undefined);

  beforeAll(async () => {
    db = await createTestDatabaseUrl(dialect);
    ds = await openDatabase({ url: db.url });
    sessions = new AgentSessionRepository(ds, new HotSql(ds));
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('moves the session and commits the write alongside only from the version it saw', async () => {
    const id = '00000000-0000-4000-8000-000000000011';
    await sessions.insert(session(id));
    expect(await sessions.compareAndSet(id, 0, { status: 'INTERRUPTED', hitlPending: true }, alongside('a'))).toBe(
      true,
    );
    expect(await sessions.find(id)).toMatchObject({ status: 'INTERRUPTED', hitlPending: true, lockVersion: 1 });
    // A stale version changes nothing, and the write alongside is not made.
    expect(await sessions.compareAndSet(id, 0, { status: 'CLOSED' }, alongside('b'))).toBe(false);
    expect(await sessions.find(id)).toMatchObject({ status: 'INTERRUPTED', lockVersion: 1 });
    expect(await marks()).toEqual(['a']);
  });

  it('rolls the session change back when the write alongside fails', async () => {
    const id = '00000000-0000-4000-8000-000000000012';
    await sessions.insert(session(id));
    // 'a' exists already: the primary key refuses it.
    // (Matched by message: better-sqlite3's error class may come from another test file's realm in the same worker.)
    await expect(sessions.compareAndSet(id, 0, { status: 'INTERRUPTED' }, alongside('a'))).rejects.toHaveProperty(
      'message',
      expect.stringMatching(/UNIQUE constraint failed|Duplicate entry/),
    );
    expect(await sessions.find(id)).toMatchObject({ status: 'ACTIVE', lockVersion: 0 });
    expect(await marks()).toEqual(['a']);
  });
});
