import { holdReadsTogether } from '@test/support/read-barrier';
import { DataSource } from 'typeorm';
import { TenantSecretsCipher } from '@app/modules/tenant-secrets/tenant-secrets.cipher';
import { TenantSecretsRepository } from '@app/modules/tenant-secrets/tenant-secrets.repository';
import { describeEachDialect } from '@test/support/test-database';
import { createKey, gatewayForSuite, startTestGateway, toolBody } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';

const SECRETS_KEY = 'a1'.repeat(32);
const PLATFORM_TOKEN = 'platform-gh-token-0123456789';
const ACME_TOKEN = 'acme-own-token-abcdef';

describeEachDialect('secrets: platform secrets stay with platform tools, tenants have their own', (dialect) => {
  const remote = new RecordingHttpServer();
  const suite = gatewayForSuite(dialect, {
    TOOL_SECRETS: `GHTOKEN=${PLATFORM_TOKEN}`,
    SECRETS_KEY,
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    TOOL_RETRY_BASE_DELAY_MS: '1',
  });
  let acmeAdmin: { Authorization: string };
  let globexAdmin: { Authorization: string };
  let acmeRuntime: { Authorization: string };
  let agentId: string;
  const secrets = (tenant: string) => `/api/v1/admin/tenants/${tenant}/secrets`;

  beforeAll(async () => {
    await remote.start();
    acmeAdmin = await createKey(suite.gw, 'acme', 'admin');
    globexAdmin = await createKey(suite.gw, 'globex', 'admin');
    acmeRuntime = await createKey(suite.gw, 'acme', 'runtime');
    agentId = (
      await suite.gw.http
        .post('/api/v1/admin/agents')
        .set(suite.gw.admin)
        .send({ name: 'secrets-agent', tenantId: 'acme' })
        .expect(201)
    ).body.id;
  });
  afterAll(() => remote.stop());

  /** Creates a tool with `key`, binds it to the acme agent, and runs it through execute. */
  async function runTool(key: { Authorization: string }, overrides: Record<string, unknown>) {
    const tool = (
      await suite.gw.http
        .post('/api/v1/admin/tools')
        .set(key)
        .send(toolBody({ httpMethod: 'GET', ...overrides }))
        .expect(201)
    ).body;
    await suite.gw.http
      .post(`/api/v1/admin/agents/${agentId}/tools`)
      .set(suite.gw.admin)
      .send({ toolId: tool.id })
      .expect(200);
    const before = remote.requests.length;
    const res = await suite.gw.http
      .post(`/api/v1/tools/${tool.name}/execute`)
      .set(acmeRuntime)
      .send({ agentId, userId: 'u1', permissions: [], arguments: { q: 'x' } })
      .expect(200);
    return { tool, result: res.body, sent: remote.requests.slice(before) };
  }

  it("a tenant's tool cannot send a platform secret: the reference resolves only from the tenant's own secrets", async () => {
    const exfil = await runTool(acmeAdmin, {
      name: 'exfil',
      endpoint: remote.url('/exfil'),
      headers: { Authorization: 'Bearer ${secret:GHTOKEN}' },
    });
    expect(exfil.result).toMatchObject({ status: 'FAILED', isError: true, errorClass: 'SECRET_MISSING' });
    expect(exfil.result.content).toContain('tenant acme does not have');
    expect(exfil.sent).toEqual([]);
    expect(JSON.stringify(remote.requests)).not.toContain(PLATFORM_TOKEN);

    await suite.gw.http
      .put(`${secrets('acme')}/GHTOKEN`)
      .set(acmeAdmin)
      .send({ value: ACME_TOKEN })
      .expect(201);
    const again = await suite.gw.http
      .post('/api/v1/tools/exfil/execute')
      .set(acmeRuntime)
      .send({ agentId, userId: 'u1', permissions: [], arguments: { q: 'x' } })
      .expect(200);
    expect(again.body).toMatchObject({ status: 'COMPLETED' });
    const seen = remote.requests.filter((r) => r.url.startsWith('/exfil'));
    expect(seen.map((r) => r.headers.authorization)).toEqual([`Bearer ${ACME_TOKEN}`]);
  });

  it('a platform-wide tool resolves TOOL_SECRETS, and a missing platform secret is never named in the result', async () => {
    const platform = await runTool(suite.gw.admin, {
      name: 'platform_gh',
      endpoint: remote.url('/platform'),
      headers: { Authorization: 'Bearer ${secret:GHTOKEN}' },
    });
    expect(platform.result.status).toBe('COMPLETED');
    expect(platform.sent.map((r) => r.headers.authorization)).toEqual([`Bearer ${PLATFORM_TOKEN}`]);

    const missing = await runTool(suite.gw.admin, {
      name: 'platform_missing',
      endpoint: remote.url('/missing'),
      headers: { 'X-Api-Key': '${secret:PLATFORM_ONLY_NAME}' },
    });
    expect(missing.result).toMatchObject({ status: 'FAILED', errorClass: 'SECRET_MISSING' });
    expect(missing.result.content).not.toContain('PLATFORM_ONLY_NAME');
    expect(missing.sent).toEqual([]);
  });

  it("shows a tenant admin a platform tool's secret references as ${secret:***}; the platform key sees them", async () => {
    const created = (
      await suite.gw.http
        .post('/api/v1/admin/tools')
        .set(suite.gw.admin)
        .send(
          toolBody({
            name: 'platform_named',
            headers: { Authorization: 'Bearer ${secret:DEPLOY_KEY}', 'X-Team': 'core' },
          }),
        )
        .expect(201)
    ).body;
    const asTenant = (await suite.gw.http.get(`/api/v1/admin/tools/${created.id}`).set(acmeAdmin).expect(200)).body;
    expect(asTenant.headers).toEqual({ Authorization: 'Bearer ${secret:***}', 'X-Team': 'core' });
    const listed = (await suite.gw.http.get('/api/v1/admin/tools?pageSize=500').set(acmeAdmin).expect(200)).body;
    expect(JSON.stringify(listed)).not.toContain('DEPLOY_KEY');
    expect(
      (await suite.gw.http.get(`/api/v1/admin/tools/${created.id}`).set(suite.gw.admin).expect(200)).body.headers
        .Authorization,
    ).toBe('Bearer ${secret:DEPLOY_KEY}');
  });

  it('stores tenant secrets encrypted, lists names and dates only, and keeps tenants apart', async () => {
    const put = await suite.gw.http
      .put(`${secrets('acme')}/ORDERS_KEY`)
      .set(suite.gw.admin)
      .send({ value: 'orders-key-value-0' })
      .expect(201);
    expect(put.body).toEqual({
      name: 'ORDERS_KEY',
      tenantId: 'acme',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const replaced = await suite.gw.http
      .put(`${secrets('acme')}/ORDERS_KEY`)
      .set(suite.gw.admin)
      .send({ value: 'orders-key-value-42' })
      .expect(200);
    expect(replaced.body).toMatchObject({ name: 'ORDERS_KEY', tenantId: 'acme', createdAt: put.body.createdAt });
    const list = await suite.gw.http.get(secrets('acme')).set(acmeAdmin).expect(200);
    expect(list.body.items.map((s: { name: string }) => s.name)).toEqual(['GHTOKEN', 'ORDERS_KEY']);
    expect(JSON.stringify(list.body)).not.toMatch(/orders-key-value-\d+|acme-own-token/);

    const ds = suite.gw.app.get(DataSource);
    const rows: Array<{ value_encrypted: string }> = await ds.query(
      "SELECT value_encrypted FROM tenant_secret WHERE tenant_id = 'acme'",
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.value_encrypted).not.toMatch(/orders-key-value-\d+|acme-own-token/);

    await suite.gw.http
      .put(`${secrets('acme')}/ORDERS_KEY`)
      .set(globexAdmin)
      .send({ value: 'x' })
      .expect(404);
    await suite.gw.http.get(secrets('acme')).set(globexAdmin).expect(404);
    await suite.gw.http
      .delete(`${secrets('acme')}/ORDERS_KEY`)
      .set(globexAdmin)
      .expect(404);
    await suite.gw.http.get(secrets('acme')).set(acmeRuntime).expect(403);
    expect((await suite.gw.http.get(secrets('globex')).set(globexAdmin).expect(200)).body.total).toBe(0);

    await suite.gw.http
      .delete(`${secrets('acme')}/ORDERS_KEY`)
      .set(acmeAdmin)
      .expect(200);
    await suite.gw.http
      .delete(`${secrets('acme')}/ORDERS_KEY`)
      .set(acmeAdmin)
      .expect(404);
    expect((await suite.gw.http.get(secrets('acme')).set(acmeAdmin).expect(200)).body.total).toBe(1);
  });

  it('validates secret names and values, naming the field', async () => {
    const lower = await suite.gw.http
      .put(`${secrets('acme')}/gh-token`)
      .set(acmeAdmin)
      .send({ value: 'v' })
      .expect(400);
    expect(lower.body.error.details.fields[0].field).toBe('name');
    const newline = await suite.gw.http
      .put(`${secrets('acme')}/OK_NAME`)
      .set(acmeAdmin)
      .send({ value: 'a\r\nX-Injected: 1' })
      .expect(400);
    expect(newline.body.error.details.fields[0].field).toBe('value');
    await suite.gw.http
      .put(`${secrets('acme')}/OK_NAME`)
      .set(acmeAdmin)
      .send({})
      .expect(400);
  });

  it('refuses a value no header can carry (characters beyond U+00FF), which every call using it would fail on', async () => {
    const wide = await suite.gw.http
      .put(`${secrets('acme')}/WIDE_VALUE`)
      .set(acmeAdmin)
      .send({ value: 'token-密码' })
      .expect(400);
    expect(wide.body.error.details.fields).toEqual([
      {
        field: 'value',
        problems: [
          'value must be text a header can carry: no line breaks, control characters or characters beyond U+00FF (it is sent as a header value)',
        ],
      },
    ]);
    await suite.gw.http
      .get(secrets('acme'))
      .set(acmeAdmin)
      .expect(200)
      .expect((res) => expect(res.body.items.map((i: { name: string }) => i.name)).not.toContain('WIDE_VALUE'));
    await suite.gw.http
      .put(`${secrets('acme')}/LATIN_VALUE`)
      .set(acmeAdmin)
      .send({ value: 'café-token' })
      .expect(201);
  });

  it('a secret changed on another gateway instance is used on the next call here (the tenant config version moved)', async () => {
    const other = await startTestGateway(suite.db.url, { SECRETS_KEY });
    try {
      await other.http
        .put(`${secrets('acme')}/GHTOKEN`)
        .set(other.admin)
        .send({ value: 'rotated-on-instance-b' })
        .expect(200);
    } finally {
      await other.close();
    }
    const res = await suite.gw.http
      .post('/api/v1/tools/exfil/execute')
      .set(acmeRuntime)
      .send({ agentId, userId: 'u1', permissions: [], arguments: { q: 'y' } })
      .expect(200);
    expect(res.body.status).toBe('COMPLETED');
    expect(remote.requests.filter((r) => r.url.startsWith('/exfil')).at(-1)!.headers.authorization).toBe(
      'Bearer rotated-on-instance-b',
    );
  });

  /** The value stored as `name` of tenant `race`, decrypted (undefined when there is none). */
  async function storedValue(name: string): Promise<string | undefined> {
    const row = await suite.gw.app.get(TenantSecretsRepository).findOne('race', name);
    return row ? suite.gw.app.get(TenantSecretsCipher).decrypt('race', name, row.valueEncrypted) : undefined;
  }

  it('stores the value with 201 when a PUT clashed with another creating the secret and a DELETE removed it before its retry', async () => {
    const repo = suite.gw.app.get(TenantSecretsRepository);
    const dataSource = suite.gw.app.get(DataSource);
    await suite.gw.http
      .put(`${secrets('race')}/CLASH`)
      .set(suite.gw.admin)
      .send({ value: 'first-value' })
      .expect(201);

    // This PUT read before another PUT created the secret (as two instances can), so its insert clashes; then a DELETE
    // lands before it tries again.
    const insert = repo.insert.bind(repo);
    const transaction = dataSource.transaction.bind(dataSource) as (...a: unknown[]) => Promise<unknown>;
    let clashed = false;
    const spies = [
      jest.spyOn(repo, 'findOne').mockResolvedValueOnce(null),
      jest.spyOn(repo, 'insert').mockImplementationOnce((m, row) =>
        insert(m, row).catch((err: unknown) => {
          clashed = true;
          throw err;
        }),
      ),
      jest.spyOn(dataSource, 'transaction').mockImplementation(async (...args: unknown[]) => {
        if (clashed) {
          clashed = false;
          await suite.gw.http
            .delete(`${secrets('race')}/CLASH`)
            .set(suite.gw.admin)
            .expect(200);
        }
        return transaction(...args);
      }),
    ];
    const put = await Promise.resolve(
      suite.gw.http
        .put(`${secrets('race')}/CLASH`)
        .set(suite.gw.admin)
        .send({ value: 'second-value' }),
    ).finally(() => spies.forEach((s) => s.mockRestore()));

    expect([put.status, put.body.name]).toEqual([201, 'CLASH']);
    expect(await storedValue('CLASH')).toBe('second-value');
  });

  it('stores the value with 201, never 200 with nothing stored, when a DELETE removed the secret after a PUT read it', async () => {
    const repo = suite.gw.app.get(TenantSecretsRepository);
    await suite.gw.http
      .put(`${secrets('race')}/GONE`)
      .set(suite.gw.admin)
      .send({ value: 'first-value' })
      .expect(201);
    // The PUT reads the row as it was before a DELETE (on another instance, or on MySQL's pool) removed it.
    const before = await repo.findOne('race', 'GONE');
    await suite.gw.http
      .delete(`${secrets('race')}/GONE`)
      .set(suite.gw.admin)
      .expect(200);
    const spy = jest.spyOn(repo, 'findOne').mockResolvedValueOnce(before);
    const put = await Promise.resolve(
      suite.gw.http
        .put(`${secrets('race')}/GONE`)
        .set(suite.gw.admin)
        .send({ value: 'second-value' }),
    ).finally(() => spy.mockRestore());

    expect([put.status, put.body.name]).toEqual([201, 'GONE']);
    expect(await storedValue('GONE')).toBe('second-value');
  });

  it.each([
    ['both tries', 2, 200, 'second-value'],
    ['every try (5)', 5, 409, 'first-value'],
  ])(
    'answers a PUT whose %s clashed with others creating the secret with %s, never 500',
    async (_label, clashes, status, stored) => {
      const repo = suite.gw.app.get(TenantSecretsRepository);
      const name = `CLASHED_${clashes}`;
      await suite.gw.http
        .put(`${secrets('race')}/${name}`)
        .set(suite.gw.admin)
        .send({ value: 'first-value' })
        .expect(201);
      // Each try read before another writer (on another instance: PUT, DELETE, PUT...) created the secret, so each
      // insert clashes with one that did.
      const spy = jest.spyOn(repo, 'findOne');
      for (let i = 0; i < clashes; i++) spy.mockResolvedValueOnce(null);
      const put = await Promise.resolve(
        suite.gw.http
          .put(`${secrets('race')}/${name}`)
          .set(suite.gw.admin)
          .send({ value: 'second-value' }),
      ).finally(() => spy.mockRestore());

      expect(put.status).toBe(status);
      if (status === 409) expect(put.body.error).toMatchObject({ code: 'CONCURRENT_MODIFICATION', details: { name } });
      expect(await storedValue(name)).toBe(stored);
    },
  );

  it('answers PUTs of one new secret at the same moment with one 201 and 200s, the stored value one of theirs', async () => {
    const values = Array.from({ length: 4 }, (_, i) => `value-${i}`);
    // On MySQL every PUT reads that there is no such secret before any of them writes, as requests on two instances
    // (or on MySQL's pool) can: all but one clash with the one that creates it. On SQLite a transaction holds the file's
    // write lock from its BEGIN: the requests run at once and take turns there (a read held inside one would wait for
    // the others for good).
    const restore =
      dialect === 'mysql' ? holdReadsTogether(suite.gw.app.get(TenantSecretsRepository), 'findOne', 4) : () => {};
    const answers = await Promise.all(
      values.map((value) =>
        suite.gw.http
          .put(`${secrets('race')}/AT_ONCE`)
          .set(suite.gw.admin)
          .send({ value }),
      ),
    ).finally(restore);

    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 201]);
    expect(values).toContain(await storedValue('AT_ONCE'));
  });

  it('answers one of several DELETEs of a secret at the same moment with 200, the others with 404', async () => {
    await suite.gw.http
      .put(`${secrets('race')}/TWICE`)
      .set(suite.gw.admin)
      .send({ value: 'some-value' })
      .expect(201);
    // Every request reads the secret before any deletes it, as requests on two instances (or on MySQL's pool) can.
    const restore = holdReadsTogether(suite.gw.app.get(TenantSecretsRepository), 'findOne', 3);
    const answers = await Promise.all(
      Array.from({ length: 3 }, () => suite.gw.http.delete(`${secrets('race')}/TWICE`).set(suite.gw.admin)),
    ).finally(restore);

    expect(answers.map((r) => r.status).sort()).toEqual([200, 404, 404]);
    expect(answers.find((r) => r.status === 404)!.body.error.code).toBe('NOT_FOUND');
    expect(await storedValue('TWICE')).toBeUndefined();
  });
});

describeEachDialect('registration refuses literal credentials', (dialect) => {
  const suite = gatewayForSuite(dialect);

  it.each([
    [
      'a Basic header',
      { headers: { Authorization: 'Basic dXNlcjpwYXNzd29yZA==' } },
      'headers.Authorization',
      'dXNlcjpwYXNzd29yZA==',
    ],
    ['a raw API key', { headers: { 'X-Api-Key': 'k-live-998877' } }, 'headers.X-Api-Key', 'k-live-998877'],
    [
      'a token in any header',
      { headers: { 'X-Forward-Auth-To': 'Bearer abcdef123456' } },
      'headers.X-Forward-Auth-To',
      'abcdef123456',
    ],
    ['URL user info', { endpoint: 'https://bob:hunter2-pw@api.example.com/x' }, 'endpoint', 'hunter2-pw'],
    [
      'MCP URL user info',
      { serviceType: 'MCP_REMOTE', endpoint: 'https://bob:hunter2-pw@mcp.example.com/mcp' },
      'endpoint',
      'hunter2-pw',
    ],
  ])(
    'tool create: %s → 400 naming the field, never echoing the credential',
    async (_label, overrides, field, literal) => {
      const res = await suite.gw.http
        .post('/api/v1/admin/tools')
        .set(suite.gw.admin)
        .send(toolBody(overrides))
        .expect(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
      expect(JSON.stringify(res.body)).not.toContain(literal);
    },
  );

  it('tool PATCH: refused the same way, nothing changed', async () => {
    const tool = (await suite.gw.http.post('/api/v1/admin/tools').set(suite.gw.admin).send(toolBody()).expect(201))
      .body;
    const res = await suite.gw.http
      .patch(`/api/v1/admin/tools/${tool.id}`)
      .set(suite.gw.admin)
      .send({ headers: { Cookie: 'session=s3ss10n-literal' } })
      .expect(400);
    expect(res.body.error.details.fields[0].field).toBe('headers.Cookie');
    expect(JSON.stringify(res.body)).not.toContain('s3ss10n-literal');
    const url = await suite.gw.http
      .patch(`/api/v1/admin/tools/${tool.id}`)
      .set(suite.gw.admin)
      .send({ endpoint: 'http://u:p4ssw0rd@127.0.0.1:9/x' })
      .expect(400);
    expect(JSON.stringify(url.body)).not.toContain('p4ssw0rd');
    expect(
      (await suite.gw.http.get(`/api/v1/admin/tools/${tool.id}`).set(suite.gw.admin).expect(200)).body.version,
    ).toBe(1);
  });

  it("refuses a tenant's tool, MCP service or model provider that references a name no tenant secret can have, saying which name to use; a platform-wide one may", async () => {
    const fieldsOf = (res: {
      body: { error: { details: { fields: Array<{ field: string; problems: string[] }> } } };
    }) => res.body.error.details.fields;
    const expectRefused = (
      res: {
        status: number;
        body: { error: { code: string; details: { fields: Array<{ field: string; problems: string[] }> } } };
      },
      field: string,
    ) => {
      expect([res.status, res.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
      const problem = fieldsOf(res)
        .find((f) => f.field === field)
        ?.problems.join(' ');
      expect(problem).toContain('${secret:gh_token}');
      expect(problem).toContain('${secret:GH_TOKEN}');
      expect(problem).toContain('PUT /api/v1/admin/tenants/acme/secrets/GH_TOKEN');
    };
    const lowerRef = { Authorization: 'Bearer ${secret:gh_token}' };
    const acmeAdmin = await createKey(suite.gw, 'acme', 'admin');

    const tool = await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(acmeAdmin)
      .send(toolBody({ name: 'lower_ref', headers: lowerRef }));
    expectRefused(tool, 'headers.Authorization');
    const upper = (
      await suite.gw.http
        .post('/api/v1/admin/tools')
        .set(acmeAdmin)
        .send(toolBody({ name: 'upper_ref', headers: { Authorization: 'Bearer ${secret:GH_TOKEN}' } }))
        .expect(201)
    ).body;
    expectRefused(
      await suite.gw.http.patch(`/api/v1/admin/tools/${upper.id}`).set(acmeAdmin).send({ headers: lowerRef }),
      'headers.Authorization',
    );
    expectRefused(
      await suite.gw.http
        .post('/api/v1/admin/mcp-services')
        .set(acmeAdmin)
        .send({ name: 'lower-ref', kind: 'STATIC', url: 'http://127.0.0.1:9/mcp', headers: lowerRef }),
      'headers.Authorization',
    );
    const provider = {
      name: 'lower-ref',
      tenantId: 'acme',
      kind: 'OPENAI_COMPATIBLE',
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: '${secret:gh_token}',
      model: 'm',
    };
    expectRefused(await suite.gw.http.post('/api/v1/admin/model-providers').set(acmeAdmin).send(provider), 'apiKey');

    // TOOL_SECRETS names take any letter case: the platform's own may reference them so.
    await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(suite.gw.admin)
      .send(toolBody({ name: 'platform_lower_ref', headers: lowerRef }))
      .expect(201);
    await suite.gw.http
      .post('/api/v1/admin/model-providers')
      .set(suite.gw.admin)
      .send({ ...provider, tenantId: undefined })
      .expect(201);
  });

  it('MCP service create: user info in the URL and literal header credentials → 400, nothing stored', async () => {
    const url = await suite.gw.http
      .post('/api/v1/admin/mcp-services')
      .set(suite.gw.admin)
      .send({ name: 'leaky', kind: 'STATIC', url: 'http://admin:s3cret-pw@127.0.0.1:9/mcp' })
      .expect(400);
    expect(url.body.error.details.fields[0].field).toBe('url');
    expect(JSON.stringify(url.body)).not.toContain('s3cret-pw');
    const header = await suite.gw.http
      .post('/api/v1/admin/mcp-services')
      .set(suite.gw.admin)
      .send({
        name: 'leaky',
        kind: 'STATIC',
        url: 'http://127.0.0.1:9/mcp',
        headers: { Authorization: 'Bearer literal-token-777' },
      })
      .expect(400);
    expect(header.body.error.details.fields[0].field).toBe('headers.Authorization');
    expect(JSON.stringify(header.body)).not.toContain('literal-token-777');
    expect((await suite.gw.http.get('/api/v1/admin/mcp-services').set(suite.gw.admin).expect(200)).body.total).toBe(0);
  });
});

describe('tenant secrets without SECRETS_KEY', () => {
  const suite = gatewayForSuite('sqlite');

  it('PUT answers 409 SECRETS_NOT_CONFIGURED saying to set SECRETS_KEY; listing still works', async () => {
    const res = await suite.gw.http
      .put('/api/v1/admin/tenants/acme/secrets/GHTOKEN')
      .set(suite.gw.admin)
      .send({ value: 'v' })
      .expect(409);
    expect(res.body.error).toMatchObject({
      code: 'SECRETS_NOT_CONFIGURED',
      message: expect.stringContaining('SECRETS_KEY'),
    });
    expect(
      (await suite.gw.http.get('/api/v1/admin/tenants/acme/secrets').set(suite.gw.admin).expect(200)).body,
    ).toEqual({ items: [], total: 0, page: 1, pageSize: 50 });
  });
});
