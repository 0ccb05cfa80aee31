import { DataSource } from 'typeorm';
import { startTestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, describeEachDialect, type TestDatabase } from '@test/support/test-database';

describeEachDialect('built-in tools at start-up', (dialect) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabaseUrl(dialect);
  });
  afterAll(async () => db?.drop());

  const row = async (ds: DataSource) =>
    (
      await ds.query<Array<{ description: string; version: number; enabled: number | boolean }>>(
        "SELECT description, version, enabled FROM ai_tool WHERE name = 'UPDATE_TODO_LIST' AND tenant_id IS NULL",
      )
    )[0];

  it("refreshes a built-in whose definition changed in a new release, keeping the admin's enabled switch", async () => {
    const first = await startTestGateway(db.url);
    const ds = first.app.get(DataSource);
    const seeded = await row(ds);
    expect(Number(seeded.version)).toBe(1);
    // What an older release wrote, and an admin's switch.
    await ds.query(
      "UPDATE ai_tool SET description = 'old words', enabled = 0 WHERE name = 'UPDATE_TODO_LIST' AND tenant_id IS NULL",
    );
    await first.close();

    const second = await startTestGateway(db.url);
    const refreshed = await row(second.app.get(DataSource));
    expect(refreshed.description).toBe(seeded.description);
    expect(Number(refreshed.version)).toBe(2);
    expect(Number(refreshed.enabled)).toBe(0);
    await second.close();

    const third = await startTestGateway(db.url);
    expect(Number((await row(third.app.get(DataSource))).version)).toBe(2);
    await third.close();
  }, 90_000); // three start-ups, the first migrating a new database: 30 s was passed on MariaDB on a loaded CI machine
});
