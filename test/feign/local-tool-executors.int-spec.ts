import { Logger } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { ToolCallError, type ToolInvocation } from '@app/modules/executors/tool-executor';
import { ToolRegistryService } from '@app/modules/tool-registry/tool-registry.service';
import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import type { AuthContext } from '@app/common/auth/auth-context';
import { FeignToolExecutor, LocalToolExecutor } from '@app/modules/feign-registration/local-tool.executor';
import { describeEachDialect } from '@test/support/test-database';
import { startFeignInstance, testDatabases } from './support/feign-test-module';
import { CalculatorTools, ordersServiceV1, ordersServiceV2 } from './support/feign-fixtures';

const PLATFORM_ADMIN: AuthContext = { keyId: 'admin', role: 'admin', tenantId: null };

describeEachDialect('LOCAL and FEIGN executors calling the decorated methods', (dialect) => {
  const databases = testDatabases(dialect);
  let moduleRef: TestingModule;
  let url: string;

  const tool = async (name: string): Promise<ToolDescriptor> =>
    (await moduleRef.get(ToolRegistryService).findByNameInScope(name, null))!;
  const invocation = (t: ToolDescriptor, args: Record<string, unknown>): ToolInvocation => ({
    tool: t,
    arguments: args,
    toolCallId: 'call-1',
    tenantId: 'tenant-a',
    userId: 'user-1',
    attempt: 1,
    signal: new AbortController().signal,
  });
  const failure = async (run: Promise<unknown>): Promise<ToolCallError> => {
    const err = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ToolCallError);
    return err as ToolCallError;
  };

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    url = await databases.fresh();
    moduleRef = await startFeignInstance(url, [ordersServiceV1(), CalculatorTools]);
  });

  afterAll(async () => {
    await moduleRef?.close();
    await databases.dropAll();
    jest.restoreAllMocks();
  });

  it('FEIGN: passes the arguments and the call context; an object result becomes JSON content', async () => {
    const output = await moduleRef
      .get(FeignToolExecutor)
      .execute(invocation(await tool('get_order'), { orderId: 'o-7' }));
    const expected = { orderId: 'o-7', toolCallId: 'call-1', tenantId: 'tenant-a', userId: 'user-1', hasSignal: true };
    expect(JSON.parse(output.content)).toEqual(expected);
    expect(output.structured).toEqual(expected);
  });

  it('LOCAL: a string result is the content as is', async () => {
    const output = await moduleRef
      .get(LocalToolExecutor)
      .execute(invocation(await tool('add_numbers'), { a: 2, b: 3 }));
    expect(output).toEqual({ content: '5' });
  });

  it('turns a thrown error into a non-transient LOCAL_TOOL_ERROR that reached the method, message without stack', async () => {
    const err = await failure(
      moduleRef.get(FeignToolExecutor).execute(invocation(await tool('ship_order'), { orderId: 'o-1' })),
    );
    expect(err).toMatchObject({
      errorClass: 'LOCAL_TOOL_ERROR',
      transient: false,
      reachedRemote: true,
      message: 'warehouse offline while shipping o-1',
    });
  });

  it('keeps the classification of a ToolCallError the method throws itself', async () => {
    const err = await failure(
      moduleRef.get(FeignToolExecutor).execute(invocation(await tool('reserve_stock'), { orderId: 'o-1' })),
    );
    expect(err).toMatchObject({ errorClass: 'STOCK_BUSY', transient: true, reachedRemote: false });
  });

  it('refuses a row whose service type is not its own', async () => {
    const err = await failure(
      moduleRef.get(LocalToolExecutor).execute(invocation(await tool('get_order'), { orderId: 'o-1' })),
    );
    expect(err).toMatchObject({ errorClass: 'LOCAL_TOOL_NOT_FOUND', transient: false, reachedRemote: false });
  });

  it('refuses a DB row that points at a decorated method: only the registered row runs it', async () => {
    const sneaky = await moduleRef.get(ToolRegistryService).create(PLATFORM_ADMIN, {
      name: 'sneaky_get_order',
      description: 'Same method, no permission tags.',
      parameters: { type: 'object' },
      serviceType: 'FEIGN',
      endpoint: 'OrdersService.getOrder',
      permissionTags: [],
      sideEffect: 'READ_ONLY',
    });
    const err = await failure(
      moduleRef
        .get(FeignToolExecutor)
        .execute(invocation((await moduleRef.get(ToolRegistryService).findById(sneaky.id))!, {})),
    );
    expect(err.errorClass).toBe('LOCAL_TOOL_NOT_FOUND');
    expect(err.message).toBe(
      'Tool sneaky_get_order (DB/FEIGN) points at OrdersService.getOrder, which runs only as the FEIGN tool get_order: call get_order instead (an admin should delete sneaky_get_order).',
    );
  });

  it('fails clearly, without running anything, for an ORPHANED row', async () => {
    const next = await startFeignInstance(url, [ordersServiceV2()]);
    try {
      const orphan = (await next.get(ToolRegistryService).findByNameInScope('orders-search', null))!;
      expect(orphan.status).toBe('DISABLED');
      const err = await failure(next.get(FeignToolExecutor).execute(invocation(orphan, { customerId: 'c-1' })));
      expect(err).toMatchObject({ errorClass: 'LOCAL_TOOL_NOT_FOUND', transient: false, reachedRemote: false });
      expect(err.message).toMatch(/no method at OrdersService\.searchOrders.*ORPHANED/);
    } finally {
      await next.close();
    }
  });
});
