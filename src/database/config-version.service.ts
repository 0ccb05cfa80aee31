import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { HotSql } from './hot-sql';

/**
 * The configuration version stamp shared by every gateway instance on one database. Every write that can
 * change what a model may see calls {@link bump}; caches compare {@link read} with the version they loaded.
 */
@Injectable()
export class ConfigVersionService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sql: HotSql,
  ) {}

  async read(): Promise<number> {
    const rows = await this.sql.all<{ version: string | number }>('SELECT version FROM config_version WHERE id = 1', []);
    return Number(rows[0]?.version ?? 0);
  }

  /** Call inside the same transaction as the write when there is one, so the stamp and the change commit together. */
  async bump(manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.query('UPDATE config_version SET version = version + 1 WHERE id = 1');
  }
}
