import type { DataSource } from 'typeorm';
import { openDatabase } from '@app/database/open-database';
import { HotSql } from '@app/database/hot-sql';
import { ConfigVersionService } from '@app/database/config-version.service';
import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';

/** Two gateway instances on one database, as far as the config version is concerned. */
describeEachDialect('ConfigVersionService: every instance sees every config change at its next read', (dialect) => {
  let db: TestDatabase;
  let dsA: DataSource;
  let dsB: DataSource;
  let a: { versions: ConfigVersionService; sql: HotSql };
  let b: { versions: ConfigVersionService; sql: HotSql };

  const instance = (ds: DataSource) => {
    const sql = new HotSql(ds);
    return { versions: new ConfigVersionService(ds, sql), sql };
  };

  beforeAll(async () => {
    db = await createTestDatabaseUrl(dialect);
    dsA = await openDatabase({ url: db.url });
    dsB = await openDatabase({ url: db.url });
    a = instance(dsA);
    b = instance(dsB);
  });
  afterAll(async () => {
    await dsA?.destroy();
    await dsB?.destroy();
    await db?.drop();
  });

  it("sees its own bump, another instance's bump, and a global bump", async () => {
    const first = await a.versions.read('acme');
    await dsA.transaction((m) => a.versions.bump(m, 'acme'));
    const afterOwn = await a.versions.read('acme');
    expect(afterOwn).not.toBe(first);
    await dsB.transaction((m) => b.versions.bump(m, 'acme'));
    const afterOther = await a.versions.read('acme');
    expect(afterOther).not.toBe(afterOwn);
    await b.versions.bump(undefined, null);
    expect((await a.versions.read('acme')).split(':')[0]).not.toBe(afterOther.split(':')[0]);
    expect(await b.versions.read('acme')).toBe(await a.versions.read('acme'));
  });

  it("a rolled-back bump changes nothing but what is read is still the database's", async () => {
    const before = await a.versions.read('acme');
    await dsA
      .transaction(async (m) => {
        await a.versions.bump(m, 'acme');
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await a.versions.read('acme')).toBe(before);
  });

  it('a read that runs while a bump outside a transaction waits for the database still sees that bump afterwards', async () => {
    const before = await a.versions.read('acme');
    // No transaction: the bump's UPDATE waits for its turn (on SQLite, for the gate) while this read runs at once.
    const bumping = a.versions.bump(undefined, 'acme');
    const during = await a.versions.read('acme');
    await bumping;
    // On SQLite the read ran before the UPDATE (one connection); on MySQL either may come first.
    if (dialect === 'sqlite') expect(during).toBe(before);
    expect(await a.versions.read('acme')).not.toBe(before);
  });

  if (dialect === 'sqlite') {
    it('on SQLite, skips the query while nothing could have changed, and reads again after any commit elsewhere', async () => {
      await a.versions.read('acme');
      const all = jest.spyOn(a.sql, 'all');
      try {
        await a.versions.read('acme');
        await a.versions.read('acme');
        expect(all).not.toHaveBeenCalled();
        // Any commit by another connection moves data_version, even one that leaves this tenant's stamp alone.
        await dsB.query("INSERT INTO tenant_config_version (tenant_id, version) VALUES ('unrelated', 1)");
        await a.versions.read('acme');
        expect(all).toHaveBeenCalledTimes(1);
        await a.versions.read('other-tenant');
        expect(all).toHaveBeenCalledTimes(2);
      } finally {
        all.mockRestore();
      }
    });
  }
});
