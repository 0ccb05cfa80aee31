import type { DataSource } from 'typeorm';
import { openDatabase } from '@app/database/open-database';
import { sqliteGateOf } from '@app/database/sqlite-gate';
import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';

/** A promise the test resolves by hand, to hold a transaction open while other work is submitted. */
function gateOpen(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  return { wait: new Promise<void>((r) => (open = r)), open: () => open() };
}

describe("SQLite gate: one shared connection, requests that never leak into each other's transactions", () => {
  let db: TestDatabase;
  let ds: DataSource;
  const names = async () =>
    (await ds.query<Array<{ name: string }>>('SELECT name FROM agent ORDER BY name')).map((r) => r.name);
  const insertAgent = (runner: { query(sql: string, params: unknown[]): Promise<unknown> }, name: string) =>
    runner.query(
      "INSERT INTO agent (id, tenant_id, name, name_key, description, web_search_mode, side_effect_policy, max_iterations, skill_ids, created_at, updated_at) VALUES (?, 't', ?, ?, NULL, 'DISABLED', 'ALLOW', 1, '[]', 0, 0)",
      [name, name, name.toLowerCase()],
    );

  beforeAll(async () => {
    db = await createTestDatabaseUrl('sqlite');
    ds = await openDatabase({ url: db.url });
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });
  beforeEach(async () => {
    await ds.query('DELETE FROM agent');
  });

  it("keeps a statement made during another request's transaction out of that transaction's rollback", async () => {
    const hold = gateOpen();
    const begun = gateOpen();
    const failing = ds.transaction(async (m) => {
      await insertAgent(m, 'in-rolled-back-tx');
      begun.open();
      await hold.wait;
      throw new Error('boom');
    });
    await begun.wait;
    const outside = insertAgent(ds, 'outside');
    await new Promise((r) => setImmediate(r));
    hold.open();
    await expect(failing).rejects.toThrow('boom');
    await outside;
    expect(await names()).toEqual(['outside']);
  });

  it('runs concurrent transactions one after the other, each committing its own rows', async () => {
    const hold = gateOpen();
    const first = ds.transaction(async (m) => {
      await insertAgent(m, 'a1');
      await hold.wait;
      await insertAgent(m, 'a2');
    });
    const second = ds.transaction(async (m) => {
      await insertAgent(m, 'b1');
      throw new Error('second fails');
    });
    hold.open();
    await first;
    await expect(second).rejects.toThrow('second fails');
    expect(await names()).toEqual(['a1', 'a2']);
  });

  it('lets synchronous raw statements run at once only when no transaction is open', async () => {
    const gate = sqliteGateOf(ds)!;
    expect(gate.canRunNow()).toBe(true);
    const hold = gateOpen();
    const tx = ds.transaction(async () => {
      await hold.wait;
    });
    await new Promise((r) => setImmediate(r));
    expect(gate.canRunNow()).toBe(false);
    hold.open();
    await tx;
    expect(gate.canRunNow()).toBe(true);
  });
});
