import type { DataSource } from 'typeorm';
import { openDatabase } from '@app/database/open-database';
import { HotSql } from '@app/database/hot-sql';
import { HotTable } from '@app/database/hot-table';
import { AgentSessionEntity } from '@app/modules/loop-acting/sessions/agent-session.entity';
import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';

const SESSION: AgentSessionEntity = {
  id: '00000000-0000-4000-8000-000000000001',
  tenantId: 'acme',
  agentId: '00000000-0000-4000-8000-000000000002',
  userId: 'u-1',
  permissions: ['read', 'write'],
  capabilities: [],
  status: 'INTERRUPTED',
  iteration: 3,
  iterationBudget: 20,
  hitlPending: true,
  hitlRequest: null,
  pendingBatch: { iteration: 3, pending: null, notRun: [{ id: 'c-1', name: 't', arguments: { q: '😀' } }] },
  todoList: [{ content: 'x', status: 'pending' }] as never,
  activeSkill: null,
  task: { description: 'Summarise the report', skill: 'pdf-tables' },
  lockVersion: 7,
  createdAt: 1_764_460_800_123,
  updatedAt: 1_764_460_800_456,
};

describeEachDialect('HotTable: raw statements with the entity as the one column definition', (dialect) => {
  let db: TestDatabase;
  let ds: DataSource;
  let sql: HotSql;
  let table: HotTable<AgentSessionEntity>;

  beforeAll(async () => {
    db = await createTestDatabaseUrl(dialect);
    ds = await openDatabase({ url: db.url });
    sql = new HotSql(ds);
    table = new HotTable(ds, AgentSessionEntity);
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('lists every column of the entity, by its database name', () => {
    expect(table.columnList.split(', ')).toEqual(ds.getMetadata(AgentSessionEntity).columns.map((c) => c.databaseName));
    expect(table.column('lockVersion')).toBe('lock_version');
  });

  it('writes a row that TypeORM reads back as written, and reads back what TypeORM wrote', async () => {
    await sql.run(`INSERT INTO agent_session (${table.columnList}) VALUES ${table.rowMarks}`, table.values(SESSION));
    expect(await ds.getRepository(AgentSessionEntity).findOneByOrFail({ id: SESSION.id })).toEqual(SESSION);
    const other = { ...SESSION, id: '00000000-0000-4000-8000-000000000003', hitlPending: false, pendingBatch: null };
    await ds.getRepository(AgentSessionEntity).insert(other as never);
    const [row] = await sql.all(`SELECT ${table.columnList} FROM agent_session WHERE id = ?`, [other.id]);
    expect(table.fromRow(row)).toEqual(other);
  });

  it('updates only the given properties, converted as the entity says, in a transaction that rolls back on error', async () => {
    const set = table.assignments({ hitlPending: false, pendingBatch: null, todoList: [] });
    await expect(
      sql.transaction(async (tx) => {
        await tx.run(`UPDATE agent_session SET ${set.sql} WHERE id = ?`, [...set.params, SESSION.id]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const [before] = await sql.all(`SELECT ${table.columnList} FROM agent_session WHERE id = ?`, [SESSION.id]);
    expect(table.fromRow(before)).toEqual(SESSION);
    await sql.transaction((tx) =>
      tx.run(`UPDATE agent_session SET ${set.sql} WHERE id = ?`, [...set.params, SESSION.id]),
    );
    const [after] = await sql.all(`SELECT ${table.columnList} FROM agent_session WHERE id = ?`, [SESSION.id]);
    expect(table.fromRow(after)).toEqual({ ...SESSION, hitlPending: false, pendingBatch: null, todoList: [] });
  });
});
