import { describeEachDialect } from '@test/support/test-database';
import { bearer, createKey, gatewayForSuite } from '@test/support/gateway-test-app';
import { waitFor } from '@test/support/wait-for';
import { hash } from 'node:crypto';
import { DataSource, type Repository } from 'typeorm';
import type { LRUCache } from 'lru-cache';
import { ApiKeysService } from '@app/modules/api-keys/api-keys.service';
import { ApiKeyEntity } from '@app/modules/api-keys/api-key.entity';

describeEachDialect('keys, roles and tenants', (dialect) => {
  const suite = gatewayForSuite(dialect);

  it('serves /health without a key', async () => {
    const res = await suite.gw.http.get('/health').expect(200);
    expect(res.body).toEqual({ status: 'ok', db: 'up' });
  });

  it('answers 401 UNAUTHENTICATED without a key and with an unknown key', async () => {
    const none = await suite.gw.http.get('/api/v1/admin/tools').expect(401);
    expect(none.body.error.code).toBe('UNAUTHENTICATED');
    expect(none.body.error.message).toMatch(/Authorization: Bearer/);
    const unknown = await suite.gw.http.get('/api/v1/admin/tools').set(bearer('gwk_not-a-key')).expect(401);
    expect(unknown.body.error.code).toBe('UNAUTHENTICATED');
  });

  it('answers 403 FORBIDDEN for a key of the wrong role, both ways', async () => {
    const runtime = await createKey(suite.gw, 'acme', 'runtime');
    const denied = await suite.gw.http.get('/api/v1/admin/tools').set(runtime).expect(403);
    expect(denied.body.error.code).toBe('FORBIDDEN');
    const agent = await suite.gw.http
      .post('/api/v1/admin/agents')
      .set(suite.gw.admin)
      .send({ name: 'a1', tenantId: 'acme' })
      .expect(201);
    const adminOnRuntime = await suite.gw.http
      .post(`/api/v1/agents/${agent.body.id}/tool-specs`)
      .set(suite.gw.admin)
      .send({ userId: 'u', permissions: [] })
      .expect(403);
    expect(adminOnRuntime.body.error.code).toBe('FORBIDDEN');
  });

  it('creates keys shown once and stored only as a hash', async () => {
    const res = await suite.gw.http
      .post('/api/v1/admin/api-keys')
      .set(suite.gw.admin)
      .send({ name: 'k', role: 'runtime', tenantId: 'acme' })
      .expect(201);
    expect(res.body).toMatchObject({ role: 'runtime', tenantId: 'acme', name: 'k' });
    expect(res.body.key).toMatch(/^gwk_/);
    const ds = suite.gw.app.get(DataSource);
    const rows: Array<Record<string, unknown>> = await ds.query('SELECT * FROM api_key WHERE id = ?', [res.body.id]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0])).not.toContain(res.body.key);
    const list = await suite.gw.http.get('/api/v1/admin/api-keys').set(suite.gw.admin).expect(200);
    expect(list.body.items.find((k: { id: string }) => k.id === res.body.id)).not.toHaveProperty('key');
  });

  it('stops accepting a deleted key', async () => {
    const created = await suite.gw.http
      .post('/api/v1/admin/api-keys')
      .set(suite.gw.admin)
      .send({ name: 'gone', role: 'admin', tenantId: 'acme' })
      .expect(201);
    await suite.gw.http.get('/api/v1/admin/tools').set(bearer(created.body.key)).expect(200);
    await suite.gw.http.delete(`/api/v1/admin/api-keys/${created.body.id}`).set(suite.gw.admin).expect(200);
    await suite.gw.http.get('/api/v1/admin/tools').set(bearer(created.body.key)).expect(401);
    await suite.gw.http.delete(`/api/v1/admin/api-keys/${created.body.id}`).set(suite.gw.admin).expect(404);
  });

  it('keeps a tenant admin inside its tenant', async () => {
    const acmeAdmin = await createKey(suite.gw, 'acme', 'admin');
    const other = await suite.gw.http
      .post('/api/v1/admin/api-keys')
      .set(acmeAdmin)
      .send({ name: 'x', role: 'runtime', tenantId: 'globex' })
      .expect(403);
    expect(other.body.error.code).toBe('FORBIDDEN');
    const globexAgent = await suite.gw.http
      .post('/api/v1/admin/agents')
      .set(suite.gw.admin)
      .send({ name: 'g', tenantId: 'globex' })
      .expect(201);
    const hidden = await suite.gw.http.get(`/api/v1/admin/agents/${globexAgent.body.id}`).set(acmeAdmin).expect(404);
    expect(hidden.body.error.code).toBe('NOT_FOUND');
    const list = await suite.gw.http.get('/api/v1/admin/agents').set(acmeAdmin).expect(200);
    expect(list.body.items.map((a: { tenantId: string }) => a.tenantId)).not.toContain('globex');
  });

  it("takes a runtime call's tenant from the key: another tenant's agent is 404", async () => {
    const globexAgent = await suite.gw.http
      .post('/api/v1/admin/agents')
      .set(suite.gw.admin)
      .send({ name: 'g2', tenantId: 'globex' })
      .expect(201);
    const acmeRuntime = await createKey(suite.gw, 'acme', 'runtime');
    const res = await suite.gw.http
      .post(`/api/v1/agents/${globexAgent.body.id}/tool-specs`)
      .set(acmeRuntime)
      .send({ userId: 'u', permissions: [] })
      .expect(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  it('validates key bodies and writes nothing on failure', async () => {
    const before = (await suite.gw.http.get('/api/v1/admin/api-keys').set(suite.gw.admin)).body.total;
    const res = await suite.gw.http
      .post('/api/v1/admin/api-keys')
      .set(suite.gw.admin)
      .send({ name: '', role: 'root', tenantId: 'a b', extra: true })
      .expect(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    const fields = res.body.error.details.fields.map((f: { field: string }) => f.field).sort();
    expect(fields).toEqual(['extra', 'name', 'role', 'tenantId']);
    expect((await suite.gw.http.get('/api/v1/admin/api-keys').set(suite.gw.admin)).body.total).toBe(before);
  });
});

describe('a key deleted while a request holding it is being authenticated', () => {
  const suite = gatewayForSuite('sqlite');

  it('is refused by the next request on this instance (the in-flight lookup does not cache it again)', async () => {
    const created = await suite.gw.http
      .post('/api/v1/admin/api-keys')
      .set(suite.gw.admin)
      .send({ name: 'raced', role: 'admin', tenantId: 'acme' })
      .expect(201);
    // The lookup of the key's hash reads the row, then waits until the key has been deleted.
    const service: unknown = suite.gw.app.get(ApiKeysService);
    const keys = (service as { keys: Repository<ApiKeyEntity> }).keys;
    const findOne = keys.findOne.bind(keys);
    let deleted!: () => void;
    const afterDelete = new Promise<void>((resolve) => (deleted = resolve));
    let reached!: () => void;
    const lookupRead = new Promise<void>((resolve) => (reached = resolve));
    const spy = jest.spyOn(keys, 'findOne').mockImplementation(async (options) => {
      const row = await findOne(options);
      if ((options.where as { keyHash?: string }).keyHash) {
        reached();
        await afterDelete;
      }
      return row;
    });
    try {
      const inFlight = suite.gw.http
        .get('/api/v1/admin/tools')
        .set(bearer(created.body.key))
        .then((r) => r.status);
      await lookupRead;
      await suite.gw.http.delete(`/api/v1/admin/api-keys/${created.body.id}`).set(suite.gw.admin).expect(200);
      // A request that starts after the delete does not share the lookup still in flight: it reads the key again.
      const startedAfter = suite.gw.http
        .get('/api/v1/admin/tools')
        .set(bearer(created.body.key))
        .then((r) => r.status);
      await waitFor(() => spy.mock.calls.filter(([o]) => (o.where as { keyHash?: string }).keyHash).length === 2, {
        description: "the second request's own lookup",
      });
      deleted();
      await inFlight;
      expect(await startedAfter).toBe(401);
    } finally {
      spy.mockRestore();
    }
    const after = await suite.gw.http.get('/api/v1/admin/tools').set(bearer(created.body.key));
    expect(after.status).toBe(401);
  });

  it('looks a key up once for concurrent requests with it, real or made up', async () => {
    const created = await suite.gw.http
      .post('/api/v1/admin/api-keys')
      .set(suite.gw.admin)
      .send({ name: 'shared', role: 'admin', tenantId: 'acme' })
      .expect(201);
    const service = suite.gw.app.get(ApiKeysService);
    const keys = (service as unknown as { keys: Repository<ApiKeyEntity> }).keys;
    // Not in the cache yet (its creation does not put it there): as after a restart.
    const spy = jest.spyOn(keys, 'findOne');
    try {
      // All asked before any lookup is answered.
      const answers = await Promise.all(
        [created.body.key as string, 'gwk_made-up-shared'].flatMap((key) =>
          Array.from({ length: 10 }, () => service.resolve(key)),
        ),
      );
      expect(answers.slice(0, 10)).toEqual(Array(10).fill(expect.objectContaining({ tenantId: 'acme' })));
      expect(answers.slice(10)).toEqual(Array(10).fill(null));
      expect(spy.mock.calls.filter(([o]) => (o.where as { keyHash?: string }).keyHash)).toHaveLength(2);
    } finally {
      spy.mockRestore();
    }
  });

  it('made-up keys, however many, do not push a real key out of the resolve cache', async () => {
    const created = await suite.gw.http
      .post('/api/v1/admin/api-keys')
      .set(suite.gw.admin)
      .send({ name: 'kept', role: 'runtime', tenantId: 'acme' })
      .expect(201);
    const service = suite.gw.app.get(ApiKeysService);
    expect(await service.resolve(created.body.key)).toMatchObject({ tenantId: 'acme', role: 'runtime' });
    // One more made-up key than the cache of real keys holds (10,000), a hundred at a time.
    for (let i = 0; i < 10_001; i += 100)
      await Promise.all(
        Array.from({ length: 100 }, async (_, j) => expect(await service.resolve(`gwk_made-up-${i + j}`)).toBeNull()),
      );
    // Still held (stale or not: this asks whether it was pushed out, not whether its 5 s passed).
    const realKeys = (service as unknown as { cache: LRUCache<string, object> }).cache;
    const keyHash = hash('sha256', created.body.key as string, 'hex');
    expect(realKeys.peek(keyHash, { allowStale: true })).toMatchObject({ tenantId: 'acme' });
  }, 120_000);
});
