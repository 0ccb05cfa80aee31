import { Test } from '@nestjs/testing';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { AppModule } from '@app/app.module';
import { loadGatewayConfig } from '@app/config/gateway-config';
import { openDatabase } from '@app/database/open-database';
import { createValidationPipe } from '@app/common/errors/validation';
import { setUpSwagger } from '@app/bootstrap/swagger';
import { ToolRegistryService } from '@app/modules/tool-registry/tool-registry.service';
import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import type { ToolInvocation } from '@app/modules/executors/tool-executor';
import { FeignRegistrationModule } from '@app/modules/feign-registration/feign-registration.module';
import { FeignToolExecutor } from '@app/modules/feign-registration/local-tool.executor';
import { DemoOrdersModule } from '@app/modules/demo-orders/demo-orders.module';
import { TEST_ADMIN_KEY } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import { testDatabases } from './support/feign-test-module';

/**
 * The whole app with feign registration and the demo order service, as the lead wires them when
 * DEMO_TOOLS_ENABLED is true: the demo tools land in the registry, the drift endpoint lists them, and the
 * FEIGN executor runs the real demo methods.
 */
describeEachDialect('GET /api/v1/admin/feign/tools and the demo order tools', (dialect) => {
  const databases = testDatabases(dialect);
  let app: NestFastifyApplication;
  const admin = { Authorization: `Bearer ${TEST_ADMIN_KEY}` };

  beforeAll(async () => {
    const url = await databases.fresh();
    const config = loadGatewayConfig({
      NODE_ENV: 'test',
      ADMIN_API_KEY: TEST_ADMIN_KEY,
      DATABASE_URL: url,
      MCP_REPAIR_ENABLED: 'false',
      LOG_LEVEL: 'error',
    });
    const moduleRef = await Test.createTestingModule({
      imports: [AppModule.forRoot(config, await openDatabase({ url })), FeignRegistrationModule, DemoOrdersModule],
    }).compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    app.useGlobalPipes(createValidationPipe());
    setUpSwagger(app);
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await app?.close();
    await databases.dropAll();
  });

  const demoTool = async (name: string): Promise<ToolDescriptor> =>
    (await app.get(ToolRegistryService).findByNameInScope(name, null))!;
  const call = async (name: string, args: Record<string, unknown>, tenantId = 'tenant-a') => {
    const invocation: ToolInvocation = {
      tool: await demoTool(name),
      arguments: args,
      toolCallId: `c-${Math.random()}`,
      tenantId,
      userId: 'u-1',
      attempt: 1,
      signal: new AbortController().signal,
    };
    return app.get(FeignToolExecutor).execute(invocation);
  };

  it('needs an admin key', async () => {
    await request(app.getHttpServer()).get('/api/v1/admin/feign/tools').expect(401);
  });

  it('lists the scanned demo tools IN_SYNC with their rows', async () => {
    const res = await request(app.getHttpServer()).get('/api/v1/admin/feign/tools').set(admin).expect(200);
    expect(res.body).toMatchObject({ total: 3, page: 1, pageSize: 50 });
    expect(res.body.items.map((i: { name: string }) => i.name)).toEqual([
      'cancel_order',
      'get_order',
      'list_orders_by_customer',
    ]);
    const row = await demoTool('get_order');
    expect(res.body.items[1]).toEqual({
      name: 'get_order',
      toolId: row.id,
      provider: 'DemoOrdersService',
      method: 'getOrder',
      source: 'FEIGN',
      serviceType: 'FEIGN',
      version: 1,
      drift: 'IN_SYNC',
      overriddenFields: [],
      checksum: expect.stringMatching(/^[0-9a-f]{64}$/),
      rowChecksum: res.body.items[1].checksum,
      problem: null,
    });
  });

  it('pages and filters by drift; an unknown drift is a 400', async () => {
    const page = await request(app.getHttpServer())
      .get('/api/v1/admin/feign/tools?page=2&pageSize=2')
      .set(admin)
      .expect(200);
    expect(page.body).toMatchObject({ total: 3, page: 2, pageSize: 2, items: [{ name: 'list_orders_by_customer' }] });
    const orphans = await request(app.getHttpServer())
      .get('/api/v1/admin/feign/tools?drift=ORPHANED')
      .set(admin)
      .expect(200);
    expect(orphans.body).toMatchObject({ total: 0, items: [] });
    const bad = await request(app.getHttpServer())
      .get('/api/v1/admin/feign/tools?drift=SOMETIMES')
      .set(admin)
      .expect(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('is documented in Swagger under "admin: registration"', async () => {
    const doc = await request(app.getHttpServer()).get('/docs-json').expect(200);
    const op = doc.body.paths['/api/v1/admin/feign/tools'].get;
    expect(op.tags).toEqual(['admin: registration']);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403']));
  });

  it('registers the demo tools with the declared policy and a schema made from the DTO class', async () => {
    expect(await demoTool('cancel_order')).toMatchObject({
      sideEffect: 'SIDE_EFFECT',
      permissionTags: ['orders:write'],
      hitl: { approvalText: expect.stringContaining('cancel this order'), rejectPolicy: 'RETURN_ERROR' },
    });
    expect((await demoTool('list_orders_by_customer')).parameters).toEqual({
      type: 'object',
      properties: {
        customerId: { type: 'string', pattern: '^c-\\d+$', description: 'The customer id, e.g. c-100' },
        status: {
          type: 'string',
          enum: ['PLACED', 'SHIPPED', 'DELIVERED', 'CANCELLED'],
          description: 'Only orders in this status',
        },
        limit: { type: 'integer', minimum: 1, maximum: 50, description: 'At most this many orders (default 10)' },
      },
      required: ['customerId'],
      additionalProperties: false,
    });
  });

  it('runs the demo methods through the FEIGN executor, scoping data to the caller tenant', async () => {
    expect(JSON.parse((await call('get_order', { orderId: 'o-1001' })).content)).toMatchObject({
      orderId: 'o-1001',
      status: 'DELIVERED',
      total: 13.5,
    });
    const placed = JSON.parse(
      (await call('list_orders_by_customer', { customerId: 'c-100', status: 'PLACED' })).content,
    );
    expect(placed.orders.map((o: { orderId: string }) => o.orderId)).toEqual(['o-1003']);

    expect((await call('cancel_order', { orderId: 'o-1003', reason: 'ordered twice' })).content).toMatch(
      /o-1003 is cancelled; 17 EUR will be refunded/,
    );
    expect((await call('cancel_order', { orderId: 'o-1003', reason: 'again' })).content).toMatch(/already cancelled/);
    await expect(call('cancel_order', { orderId: 'o-1002', reason: 'late' })).rejects.toMatchObject({
      errorClass: 'LOCAL_TOOL_ERROR',
      message: expect.stringMatching(/SHIPPED.*can no longer be cancelled/),
    });

    expect(JSON.parse((await call('get_order', { orderId: 'o-1003' }, 'tenant-b')).content).status).toBe('PLACED');
  });

  it('answers the new-tool checklist for the scanned FEIGN tools, every model format accepting their specs', async () => {
    for (const name of ['cancel_order', 'get_order', 'list_orders_by_customer']) {
      const res = await request(app.getHttpServer())
        .get(`/api/v1/admin/tools/${(await demoTool(name)).id}/checklist`)
        .set(admin)
        .expect(200);
      const items = res.body.items as Array<{ check: string; status: string }>;
      expect(items).toHaveLength(14);
      expect(items.filter((i) => i.check.startsWith('MODEL_') && i.status === 'FAIL')).toEqual([]);
    }
  });
});
