/**
 * One gateway instance in its own process, for the concurrent-start test: scans the fixtures, says
 * "READY", waits for a line on stdin (so two processes reconcile at the same moment), reconciles and
 * prints "REPORT <json>". Run: node -r @swc-node/register test/feign/support/reconcile-instance.main.ts sqlite:<file>
 */
import 'reflect-metadata';
import { once } from 'node:events';
import { Logger } from '@nestjs/common';
import { FeignToolExplorer } from '@app/modules/feign-registration/feign-tool.explorer';
import { FeignToolReconciler } from '@app/modules/feign-registration/feign-tool.reconciler';
import { startFeignInstance } from './feign-test-module';
import { CalculatorTools, ordersServiceV1 } from './feign-fixtures';

async function main(): Promise<void> {
  Logger.overrideLogger(false);
  const moduleRef = await startFeignInstance(process.argv[2], [ordersServiceV1(), CalculatorTools], { init: false });
  moduleRef.get(FeignToolExplorer).onModuleInit();
  process.stdout.write('READY\n');
  await once(process.stdin, 'data');
  process.stdin.destroy();
  const report = await moduleRef.get(FeignToolReconciler).reconcile();
  process.stdout.write(`REPORT ${JSON.stringify(report)}\n`);
  await moduleRef.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
