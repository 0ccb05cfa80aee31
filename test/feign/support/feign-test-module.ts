import { Module, Provider } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { openDatabase } from '@app/database/open-database';
import { DatabaseModule } from '@app/database/database.module';
import { GatewayConfigModule } from '@app/config/config.module';
import { loadGatewayConfig } from '@app/config/gateway-config';
import { FeignRegistrationModule } from '@app/modules/feign-registration/feign-registration.module';
import { createTestDatabaseUrl, type TestDatabase, type TestDialect } from '@test/support/test-database';

@Module({})
class FeignFixturesModule {}

/** Fresh databases of one dialect for a suite; `dropAll()` in afterAll. */
export function testDatabases(dialect: TestDialect): { fresh(): Promise<string>; dropAll(): Promise<void> } {
  const created: TestDatabase[] = [];
  return {
    fresh: async () => {
      const database = await createTestDatabaseUrl(dialect);
      created.push(database);
      return database.url;
    },
    dropAll: async () => {
      await Promise.all(created.splice(0).map((database) => database.drop()));
    },
  };
}

/**
 * One "gateway instance" for the feign tests: the database opened and migrated as at start-up, the feign
 * registration module and `providers` (the service teams' decorated classes). `init: false` compiles
 * without lifecycle hooks, so a test can drive the explorer and the reconciler step by step.
 */
export async function startFeignInstance(
  databaseUrl: string,
  providers: Provider[],
  options: { init?: boolean } = {},
): Promise<TestingModule> {
  const dataSource = await openDatabase({ url: databaseUrl });
  const moduleRef = await Test.createTestingModule({
    imports: [
      GatewayConfigModule.forRoot(loadGatewayConfig({ NODE_ENV: 'test', DATABASE_URL: databaseUrl })),
      DatabaseModule.forDataSource(dataSource),
      FeignRegistrationModule,
      { module: FeignFixturesModule, providers },
    ],
  }).compile();
  try {
    if (options.init !== false) await moduleRef.init();
  } catch (err) {
    await moduleRef.close().catch(() => undefined);
    // A failed init never reaches the shutdown hook that would close the connection.
    if (dataSource.isInitialized) await dataSource.destroy();
    throw err;
  }
  return moduleRef;
}
