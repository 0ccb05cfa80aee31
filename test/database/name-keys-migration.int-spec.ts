import { DataSource } from 'typeorm';
import { AddNameKeys1764461400000 } from '@migrations/1764461400000-AddNameKeys';
import { describeEachDialect, type TestDatabase } from '@test/support/test-database';
import { migratedOverSeed } from '@test/support/migration-fixture';

const MIGRATION = AddNameKeys1764461400000;

function toolRow(id: string, scope: string, name: string, createdAt: number): unknown[] {
  return [
    id,
    scope === '*' ? null : scope,
    scope,
    name,
    'd',
    '{}',
    'HTTP',
    'http://x',
    '[]',
    '[]',
    'READ_ONLY',
    '[]',
    1,
    'ACTIVE',
    'DB',
    1,
    createdAt,
    createdAt,
  ];
}

describeEachDialect('migration AddNameKeys: existing names (issue 9 #7)', (dialect) => {
  let db: TestDatabase;
  let ds: DataSource | undefined;

  beforeAll(async () => {
    ({ db, ds } = await migratedOverSeed(dialect, MIGRATION, async (old) => {
      const insert = `INSERT INTO ai_tool (id, tenant_id, scope_key, name, description, parameters, service_type, endpoint, permission_tags, tags, side_effect, requires, enabled, status, source, version, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
      await old.query(insert, toolRow('t-1', 'acme', 'Search', 1));
      await old.query(insert, toolRow('t-2', 'acme', '1password', 2));
      await old.query(insert, toolRow('t-3', 'acme', '_1password', 3));
      await old.query(insert, toolRow('t-4', 'globex', 'search', 4));
      // SQLite compared case-sensitively before: this duplicate could be stored there (MySQL refused it).
      if (dialect === 'sqlite') await old.query(insert, toolRow('t-5', 'acme', 'search', 5));
      const agent =
        'INSERT INTO agent (id, tenant_id, name, web_search_mode, side_effect_policy, max_iterations, skill_ids, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)';
      await old.query(agent, ['a-1', 'acme', 'Bot', 'DISABLED', 'ALLOW', 20, '[]', 1, 1]);
      if (dialect === 'sqlite') await old.query(agent, ['a-2', 'acme', 'bot', 'DISABLED', 'ALLOW', 20, '[]', 2, 2]);
    }));
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('fills name_key, gives names that start with a digit a leading _, and keeps the oldest of names that differ only in case', async () => {
    const rows: Array<{ id: string; name: string; name_key: string }> = await ds!.query(
      'SELECT id, name, name_key FROM ai_tool WHERE id LIKE ? ORDER BY id',
      ['t-%'],
    );
    const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
    expect(byId['t-1']).toEqual({ id: 't-1', name: 'Search', name_key: 'search' });
    expect(byId['t-2']).toEqual({ id: 't-2', name: '_1password', name_key: '_1password' });
    expect(byId['t-3'].name).toMatch(/^_1password_[0-9a-f]{8}$/);
    expect(byId['t-4']).toEqual({ id: 't-4', name: 'search', name_key: 'search' });
    if (dialect === 'sqlite') expect(byId['t-5'].name).toMatch(/^search_[0-9a-f]{8}$/);
    for (const r of rows) expect(r.name_key).toBe(r.name.toLowerCase());
    const agents: Array<{ id: string; name: string }> = await ds!.query('SELECT id, name FROM agent ORDER BY id');
    expect(agents[0]).toEqual({ id: 'a-1', name: 'Bot' });
    if (dialect === 'sqlite') expect(agents[1].name).toMatch(/^bot_[0-9a-f]{8}$/);
  });

  it('then refuses, in the database itself, a second name that differs only in case', async () => {
    const insert = `INSERT INTO ai_tool (id, tenant_id, scope_key, name, name_key, description, parameters, service_type, endpoint, permission_tags, tags, side_effect, requires, enabled, status, source, version, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
    const [id, tenantId, scope, name, ...rest] = toolRow('t-9', 'acme', 'SEARCH', 9);
    await expect(ds!.query(insert, [id, tenantId, scope, name, 'search', ...rest])).rejects.toThrow(
      /unique|duplicate/i,
    );
  });
});
