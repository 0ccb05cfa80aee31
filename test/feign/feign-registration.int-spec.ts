import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Logger } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { getDataSourceToken } from '@nestjs/typeorm';
import { IsNull, Not, type DataSource } from 'typeorm';
import { AiToolEntity, PLATFORM_SCOPE } from '@app/modules/tool-registry/ai-tool.entity';
import { ToolRegistryService } from '@app/modules/tool-registry/tool-registry.service';
import { ConfigVersionService } from '@app/database/config-version.service';
import type { AuthContext } from '@app/common/auth/auth-context';
import { FeignToolReconciler, type FeignReconcileReport } from '@app/modules/feign-registration/feign-tool.reconciler';
import { waitFor } from '@test/support/wait-for';
import { FeignToolExplorer } from '@app/modules/feign-registration/feign-tool.explorer';
import { FeignToolReportService } from '@app/modules/feign-registration/feign-tool-report.service';
import { LocalToolHandlerRegistry } from '@app/modules/feign-registration/local-tool-handler.registry';
import { FeignToolDefinitionError } from '@app/modules/feign-registration/feign-tool-definition.error';
import { describeEachDialect } from '@test/support/test-database';
import { startFeignInstance, testDatabases } from './support/feign-test-module';
import {
  AlphaService,
  BadSchemaService,
  BetaService,
  ShoutingService,
  CalculatorTools,
  ordersServiceV1,
  ordersServiceV2,
  RequestScopedTools,
  TransientTools,
} from './support/feign-fixtures';

interface SpawnedInstance {
  child: ChildProcessWithoutNullStreams;
  ready: Promise<void>;
  report: Promise<FeignReconcileReport>;
}

/** Instance processes still running: killed after each test, whatever its outcome. */
const spawned = new Set<ChildProcessWithoutNullStreams>();
afterEach(() => spawned.forEach((child) => child.kill('SIGKILL')));

/** Starts test/feign/support/reconcile-instance.main.ts in its own process (a second gateway instance). */
function spawnInstance(url: string): SpawnedInstance {
  const child = spawn(
    process.execPath,
    ['-r', '@swc-node/register', 'test/feign/support/reconcile-instance.main.ts', url],
    { cwd: process.cwd() },
  );
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const lines = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`instance exited with ${code}: ${err}`))));
  });
  // The child compiles the sources with @swc-node/register at start: tens of seconds on a loaded 2-core machine.
  const ready = waitFor(() => out.includes('READY\n'), {
    timeoutMs: 120_000,
    description: 'the instance to scan its tools',
  }).then(() => undefined);
  const report = lines.then((text) => JSON.parse(/^REPORT (.*)$/m.exec(text)![1]) as FeignReconcileReport);
  // A test that failed early stops waiting; the child's later exit must not surface in another suite.
  ready.catch(() => undefined);
  report.catch(() => undefined);
  spawned.add(child);
  child.on('exit', () => spawned.delete(child));
  return { child, ready, report };
}

const PLATFORM_ADMIN: AuthContext = { keyId: 'admin', role: 'admin', tenantId: null };

describeEachDialect('Feign registration: explorer, reconciler, drift report', (dialect) => {
  const databases = testDatabases(dialect);
  const open: TestingModule[] = [];
  let warn: jest.SpyInstance;
  let error: jest.SpyInstance;

  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });

  afterEach(async () => {
    while (open.length) await open.pop()!.close();
    jest.restoreAllMocks();
  });

  afterAll(() => databases.dropAll());

  async function start(
    url: string,
    providers: Parameters<typeof startFeignInstance>[1],
    init = true,
  ): Promise<TestingModule> {
    const moduleRef = await startFeignInstance(url, providers, { init });
    open.push(moduleRef);
    return moduleRef;
  }

  /** Closes an instance (as a gateway shutting down before the next deployment starts). */
  async function stop(moduleRef: TestingModule): Promise<void> {
    open.splice(open.indexOf(moduleRef), 1);
    await moduleRef.close();
  }

  const rows = (m: TestingModule) => m.get<DataSource>(getDataSourceToken()).getRepository(AiToolEntity);
  const row = async (m: TestingModule, name: string) => rows(m).findOneByOrFail({ scopeKey: PLATFORM_SCOPE, name });
  const reportOf = (m: TestingModule) => m.get(FeignToolReconciler).lastReport!;
  const driftList = (m: TestingModule) => m.get(FeignToolReportService).list({});

  describe('discovery', () => {
    it('names tools after the method in snake_case unless a name is given, with the decorator source', async () => {
      const m = await start(await databases.fresh(), [ordersServiceV1(), CalculatorTools]);
      const names = m
        .get(LocalToolHandlerRegistry)
        .all()
        .map((r) => [r.definition.name, r.definition.source, r.definition.serviceType, r.definition.endpoint]);
      expect(names).toEqual([
        ['add_numbers', 'BUILTIN', 'LOCAL', 'CalculatorTools.addNumbers'],
        ['get_order', 'FEIGN', 'FEIGN', 'OrdersService.getOrder'],
        ['orders-search', 'FEIGN', 'FEIGN', 'OrdersService.searchOrders'],
        ['reserve_stock', 'FEIGN', 'FEIGN', 'OrdersService.reserveStock'],
        ['ship_order', 'FEIGN', 'FEIGN', 'OrdersService.shipOrder'],
      ]);
      expect(m.get(LocalToolHandlerRegistry).findByName('orders-search')!.definition.parameters).toMatchObject({
        type: 'object',
        required: ['customerId'],
        properties: { status: { enum: ['OPEN', 'CLOSED'] }, limit: { type: 'integer', minimum: 1, maximum: 20 } },
      });
    });

    it('fails start-up on a duplicate name, naming both places', async () => {
      const failed = start(await databases.fresh(), [AlphaService, BetaService]);
      await expect(failed).rejects.toThrow(FeignToolDefinitionError);
      await expect(failed).rejects.toThrow(
        /"lookup" is declared twice: AlphaService\.lookup \(in FeignFixturesModule\) and BetaService\.find \(in FeignFixturesModule\)/,
      );
    });

    it('fails start-up on names that differ only in case: they are one name (issue 9 #7)', async () => {
      const failed = start(await databases.fresh(), [AlphaService, ShoutingService]);
      await expect(failed).rejects.toThrow(
        /"lookup" \(names differ only in case: they are one name\) is declared twice: AlphaService\.lookup .* and ShoutingService\.find/,
      );
    });

    it('fails start-up on an invalid parameter schema, naming the method', async () => {
      await expect(start(await databases.fresh(), [BadSchemaService])).rejects.toThrow(
        /BadSchemaService\.takesString .*"type": "object" at the root/,
      );
    });

    it('skips request-scoped and transient providers with a warning and registers nothing for them', async () => {
      const m = await start(await databases.fresh(), [RequestScopedTools, TransientTools, CalculatorTools]);
      expect(
        m
          .get(LocalToolHandlerRegistry)
          .all()
          .map((r) => r.definition.name),
      ).toEqual(['add_numbers']);
      const warnings = warn.mock.calls.map((c) => String(c[0]));
      expect(warnings).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/RequestScopedTools\.perRequest.*singleton/),
          expect.stringMatching(/TransientTools\.perConsumer.*singleton/),
        ]),
      );
      expect(await rows(m).countBy({ name: 'per_request' })).toBe(0);
    });
  });

  describe('reconcile at start-up', () => {
    it('inserts new tools platform-wide as version 1 with the checksum of their definition', async () => {
      const m = await start(await databases.fresh(), [ordersServiceV1(), CalculatorTools]);
      expect(reportOf(m).inserted.sort()).toEqual([
        'add_numbers',
        'get_order',
        'orders-search',
        'reserve_stock',
        'ship_order',
      ]);
      const getOrder = await row(m, 'get_order');
      expect(getOrder).toMatchObject({
        tenantId: null,
        source: 'FEIGN',
        serviceType: 'FEIGN',
        endpoint: 'OrdersService.getOrder',
        version: 1,
        enabled: true,
        status: 'ACTIVE',
        timeoutMs: 1000,
        permissionTags: ['orders:read'],
        definitionChecksum: m.get(LocalToolHandlerRegistry).findByName('get_order')!.checksum,
      });
      expect(await row(m, 'add_numbers')).toMatchObject({
        source: 'BUILTIN',
        serviceType: 'LOCAL',
        endpoint: 'CalculatorTools.addNumbers',
      });
    });

    it('writes nothing on a restart with the same decorators (no config-version bump)', async () => {
      const url = await databases.fresh();
      await stop(await start(url, [ordersServiceV1()]));
      const second = await start(url, [ordersServiceV1()]);
      expect(reportOf(second)).toMatchObject({ inserted: [], updated: [], orphaned: [] });
      expect(reportOf(second).unchanged).toHaveLength(4);
      const versionBefore = await second.get(ConfigVersionService).read('any-tenant');
      await second.get(FeignToolReconciler).reconcile();
      expect(await second.get(ConfigVersionService).read('any-tenant')).toBe(versionBefore);
      expect((await row(second, 'get_order')).version).toBe(1);
      expect((await driftList(second)).items.every((i) => i.drift === 'IN_SYNC')).toBe(true);
    });

    it("reports an admin's change to enabled/timeoutMs/permissionTags as DB_OVERRIDDEN and keeps it across restarts", async () => {
      const url = await databases.fresh();
      const first = await start(url, [ordersServiceV1()]);
      const id = (await row(first, 'get_order')).id;
      await first
        .get(ToolRegistryService)
        .update(PLATFORM_ADMIN, id, { enabled: false, timeoutMs: 9000, permissionTags: ['vip'] });
      await stop(first);

      const second = await start(url, [ordersServiceV1()]);
      expect(reportOf(second).unchanged).toContain('get_order');
      expect(await row(second, 'get_order')).toMatchObject({
        enabled: false,
        timeoutMs: 9000,
        permissionTags: ['vip'],
        version: 2,
      });
      const item = (await driftList(second)).items.find((i) => i.name === 'get_order');
      expect(item).toMatchObject({
        toolId: id,
        drift: 'DB_OVERRIDDEN',
        provider: 'OrdersService',
        method: 'getOrder',
        source: 'FEIGN',
        version: 2,
      });
      expect(item!.overriddenFields.sort()).toEqual(['enabled', 'permissionTags', 'timeoutMs']);
    });

    it('updates source fields and bumps the version when a decorator changes, keeping what an admin changed', async () => {
      const url = await databases.fresh();
      const first = await start(url, [ordersServiceV1()]);
      const id = (await row(first, 'get_order')).id;
      await first.get(ToolRegistryService).update(PLATFORM_ADMIN, id, { enabled: false, permissionTags: ['vip'] });
      await stop(first);

      const second = await start(url, [ordersServiceV2()]);
      expect(reportOf(second).updated).toContain('get_order');
      expect(await row(second, 'get_order')).toMatchObject({
        description: 'Looks up an order with its items.',
        sideEffect: 'IDEMPOTENT',
        tags: ['v2'],
        version: 3,
        enabled: false,
        permissionTags: ['vip'],
        timeoutMs: 1000,
        definitionChecksum: second.get(LocalToolHandlerRegistry).findByName('get_order')!.checksum,
      });
      const item = (await driftList(second)).items.find((i) => i.name === 'get_order');
      expect(item).toMatchObject({ drift: 'DB_OVERRIDDEN', version: 3 });
      expect(item!.overriddenFields.sort()).toEqual(['enabled', 'permissionTags', 'timeoutMs']);
    });

    it('takes the new timeoutMs and permissionTags of a changed decorator when no admin touched the row', async () => {
      const url = await databases.fresh();
      await stop(await start(url, [ordersServiceV1()]));
      const second = await start(url, [ordersServiceV2()]);
      expect(await row(second, 'get_order')).toMatchObject({
        version: 2,
        timeoutMs: 2000,
        permissionTags: ['orders:read', 'orders:items'],
        enabled: true,
      });
      expect((await driftList(second)).items.find((i) => i.name === 'get_order')).toMatchObject({
        drift: 'IN_SYNC',
        overriddenFields: [],
      });
    });

    it('disables the row of a vanished decorator (never deletes it), reports it ORPHANED, and revives it when it returns', async () => {
      const url = await databases.fresh();
      await stop(await start(url, [ordersServiceV1()]));
      const second = await start(url, [ordersServiceV2()]);
      expect(reportOf(second).orphaned).toEqual(['orders-search']);
      expect(await row(second, 'orders-search')).toMatchObject({
        status: 'DISABLED',
        version: 2,
        endpoint: 'OrdersService.searchOrders',
      });
      expect((await driftList(second)).items.find((i) => i.name === 'orders-search')).toMatchObject({
        drift: 'ORPHANED',
        provider: 'OrdersService',
        method: 'searchOrders',
        version: 2,
      });
      expect((await second.get(FeignToolReportService).list({ drift: 'ORPHANED' })).total).toBe(1);
      await stop(second);

      const third = await start(url, [ordersServiceV2()]);
      expect(reportOf(third).orphaned).toEqual(['orders-search']);
      expect((await row(third, 'orders-search')).version).toBe(2);
      await stop(third);

      const fourth = await start(url, [ordersServiceV1()]);
      expect(await row(fourth, 'orders-search')).toMatchObject({ status: 'ACTIVE', version: 3 });
    });

    it('follows a decorator renamed only in case: the row takes the new name and stays ACTIVE, not ORPHANED', async () => {
      const url = await databases.fresh();
      await stop(await start(url, [AlphaService])); // "lookup"
      const second = await start(url, [ShoutingService]); // "LOOKUP": the same name, spelt otherwise
      expect(reportOf(second)).toMatchObject({ updated: ['LOOKUP'], orphaned: [] });
      const renamed = await rows(second).findOneByOrFail({ scopeKey: PLATFORM_SCOPE, nameKey: 'lookup' });
      expect(renamed).toMatchObject({ name: 'LOOKUP', status: 'ACTIVE', endpoint: 'ShoutingService.find' });
      expect((await driftList(second)).items).toEqual([expect.objectContaining({ name: 'LOOKUP', drift: 'IN_SYNC' })]);
    });

    it('does not overwrite a DB tool of the same name: logs an error and reports the clash', async () => {
      const url = await databases.fresh();
      const first = await start(url, [CalculatorTools]);
      const dbTool = await first.get(ToolRegistryService).create(PLATFORM_ADMIN, {
        name: 'get_order',
        description: 'The HTTP order lookup.',
        parameters: { type: 'object' },
        serviceType: 'HTTP',
        endpoint: 'https://orders.example.com/orders',
        permissionTags: [],
        sideEffect: 'READ_ONLY',
      });
      await stop(first);

      const second = await start(url, [ordersServiceV1()]);
      expect(reportOf(second).clashes).toEqual(['get_order']);
      expect(await row(second, 'get_order')).toMatchObject({
        id: dbTool.id,
        source: 'DB',
        serviceType: 'HTTP',
        description: 'The HTTP order lookup.',
        version: 1,
      });
      expect(error.mock.calls.map((c) => String(c[0]))).toEqual(
        expect.arrayContaining([expect.stringMatching(/get_order .*not registered.*DB tool/)]),
      );
      expect((await driftList(second)).items.find((i) => i.name === 'get_order')).toMatchObject({
        toolId: null,
        drift: 'DB_OVERRIDDEN',
        problem: expect.stringMatching(/taken by DB tool/),
      });
    });

    it('bumps the config version with each write', async () => {
      const m = await start(await databases.fresh(), [CalculatorTools], false);
      m.get(FeignToolExplorer).onModuleInit();
      // Feign tools are platform-wide: the global stamp moves, so every tenant's view reloads.
      const [globalBefore, tenantBefore] = (await m.get(ConfigVersionService).read('any-tenant'))
        .split(':')
        .map(Number);
      await m.get(FeignToolReconciler).reconcile();
      expect(await m.get(ConfigVersionService).read('any-tenant')).toBe(`${globalBefore + 1}:${tenantBefore}`);
    });
  });

  describe('two instances at once', () => {
    it('re-reads after losing the insert race (unique violation) and leaves one row', async () => {
      jest.spyOn(console, 'log').mockImplementation(() => undefined); // TypeORM logs the failed INSERTs
      const url = await databases.fresh();
      const a = await start(url, [ordersServiceV1()], false);
      const b = await start(url, [ordersServiceV1()], false);
      a.get(FeignToolExplorer).onModuleInit();
      b.get(FeignToolExplorer).onModuleInit();
      const planB = await b.get(FeignToolReconciler).plan();
      expect(planB.every((s) => s.kind === 'insert')).toBe(true);

      const reportA = await a.get(FeignToolReconciler).reconcile();
      const reportB = await b.get(FeignToolReconciler).apply(planB);

      expect(reportA.inserted).toHaveLength(4);
      expect(reportB).toMatchObject({ inserted: [], updated: [] });
      expect(reportB.raced.sort()).toEqual(['get_order', 'orders-search', 'reserve_stock', 'ship_order']);
      expect(reportB.unchanged).toHaveLength(4);
      expect(await rows(a).countBy({ name: 'get_order' })).toBe(1);
      expect((await row(a, 'get_order')).version).toBe(1);
    });

    it('re-plans an update that lost to an admin edit, keeping the edit', async () => {
      const url = await databases.fresh();
      await stop(await start(url, [ordersServiceV1()]));
      const next = await start(url, [ordersServiceV2()], false);
      next.get(FeignToolExplorer).onModuleInit();
      const plan = await next.get(FeignToolReconciler).plan();
      const id = (await row(next, 'get_order')).id;
      await next.get(ToolRegistryService).update(PLATFORM_ADMIN, id, { permissionTags: ['vip'] });

      const report = await next.get(FeignToolReconciler).apply(plan);
      expect(report.raced).toContain('get_order');
      expect(report.updated).toContain('get_order');
      expect(await row(next, 'get_order')).toMatchObject({
        version: 3,
        permissionTags: ['vip'],
        description: 'Looks up an order with its items.',
      });
    });

    it('runs two gateway processes that reconcile at the same moment against one database: each tool inserted once', async () => {
      const url = await databases.fresh();
      await stop(await start(url, [])); // migrate once, as the first instance of a deployment does
      const [a, b] = [spawnInstance(url), spawnInstance(url)];
      await Promise.all([a.ready, b.ready]);
      a.child.stdin.end('go\n');
      b.child.stdin.end('go\n');
      const [reportA, reportB] = await Promise.all([a.report, b.report]);

      const all = ['add_numbers', 'get_order', 'orders-search', 'reserve_stock', 'ship_order'];
      expect([...reportA.inserted, ...reportB.inserted].sort()).toEqual(all);
      for (const report of [reportA, reportB]) expect([...report.inserted, ...report.unchanged].sort()).toEqual(all);
      const check = await start(url, [], false);
      const written = await rows(check).find({ where: { definitionChecksum: Not(IsNull()) }, order: { name: 'ASC' } });
      expect(written.map((r) => [r.name, r.version])).toEqual([
        ['add_numbers', 1],
        ['get_order', 1],
        ['orders-search', 1],
        ['reserve_stock', 1],
        ['ship_order', 1],
      ]);
    }, 180_000);
  });
});
