import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ConfigVersionService } from './config-version.service';
import { HotSql } from './hot-sql';

/**
 * Hands the already opened and migrated {@link DataSource} (see `openDatabase`) to TypeORM's Nest module,
 * so start-up fails with one clear message before Nest starts when the database is not usable.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forDataSource(dataSource: DataSource): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => dataSource.options,
          dataSourceFactory: async () => dataSource,
        }),
      ],
      providers: [ConfigVersionService, HotSql],
      exports: [ConfigVersionService, HotSql],
    };
  }
}
