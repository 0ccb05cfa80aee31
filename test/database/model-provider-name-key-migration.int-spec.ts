import { DataSource } from 'typeorm';
import { AddModelProviderNameKey1764463100000 } from '@migrations/1764463100000-AddModelProviderNameKey';
import { describeEachDialect, type TestDatabase } from '@test/support/test-database';
import { migratedOverSeed } from '@test/support/migration-fixture';

const INSERT = `INSERT INTO model_provider (id, tenant_id, name, kind, base_url, api_key_ref, model, options, version, created_at, updated_at)
  VALUES (?, ?, ?, 'OPENAI_COMPATIBLE', 'http://127.0.0.1:1/v1', NULL, 'm', NULL, 1, ?, ?)`;

describeEachDialect('migration AddModelProviderNameKey: names stored twice before it', (dialect) => {
  let db: TestDatabase;
  let ds: DataSource | undefined;

  beforeAll(async () => {
    ({ db, ds } = await migratedOverSeed(dialect, AddModelProviderNameKey1764463100000, async (old) => {
      const row = (id: string, tenantId: string | null, name: string, at: number) =>
        old.query(INSERT, [id, tenantId, name, at, at]);
      // What two concurrent creates could store before (nothing in the database refused them).
      await row('p-1', 'acme', 'vllm', 1);
      await row('p-2', 'acme', 'vllm', 2);
      await row('p-3', 'acme', 'VLLM', 3);
      await row('p-4', 'globex', 'vllm', 4);
      await row('p-5', null, 'vllm', 5);
      await row('p-6', null, 'vllm', 6);
      await row('p-7', 'acme', 'Café', 7);
      await row('p-8', 'acme', 'Cafe', 8);
    }));
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('keeps the oldest name in each scope and gives each later duplicate a suffix', async () => {
    const rows: Array<{ id: string; scope_key: string; name: string; name_key: string }> = await ds!.query(
      'SELECT id, scope_key, name, name_key FROM model_provider ORDER BY id',
    );
    const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
    expect(byId['p-1']).toEqual({ id: 'p-1', scope_key: 'acme', name: 'vllm', name_key: 'vllm' });
    expect(byId['p-2'].name).toMatch(/^vllm_[0-9a-f]{8}$/);
    expect(byId['p-3'].name).toMatch(/^VLLM_[0-9a-f]{8}$/);
    expect(byId['p-4']).toEqual({ id: 'p-4', scope_key: 'globex', name: 'vllm', name_key: 'vllm' });
    expect(byId['p-5']).toEqual({ id: 'p-5', scope_key: '*', name: 'vllm', name_key: 'vllm' });
    expect(byId['p-6'].name).toMatch(/^vllm_[0-9a-f]{8}$/);
    expect(byId['p-7'].name).toBe('Café');
    expect(byId['p-8'].name).toBe('Cafe');
    for (const r of rows) expect(r.name_key).toBe(r.name.toLowerCase());
    expect(new Set(rows.map((r) => `${r.scope_key}/${r.name_key}`)).size).toBe(rows.length);
  });

  it('then refuses, in the database itself, a second name in a scope (platform-wide too), byte for byte', async () => {
    const insert = `INSERT INTO model_provider (id, tenant_id, scope_key, name, name_key, kind, base_url, model, version, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, 'OPENAI_COMPATIBLE', 'http://127.0.0.1:1/v1', 'm', 1, 9, 9)`;
    await expect(ds!.query(insert, ['p-9', 'acme', 'acme', 'Vllm', 'vllm'])).rejects.toThrow(/unique|duplicate/i);
    await expect(ds!.query(insert, ['p-10', null, '*', 'vllm', 'vllm'])).rejects.toThrow(/unique|duplicate/i);
    await ds!.query(insert, ['p-11', 'ACME', 'ACME', 'vllm', 'vllm']);
    await ds!.query(insert, ['p-12', 'acme', 'acme', 'Strasse', 'strasse']);
    await ds!.query(insert, ['p-13', 'acme', 'acme', 'Straße', 'straße']);
  });
});
