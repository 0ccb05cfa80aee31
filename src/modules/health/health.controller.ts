import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { DataSource } from 'typeorm';
import type { FastifyReply } from 'fastify';
import { Public } from '@app/common/auth/auth.decorators';
import { untilAborted } from '@app/common/abort-race';

/**
 * How long /health waits for the database's answer: a MySQL server that hangs (not stopped: its connections stay
 * open) or a pool whose connections are all taken held the probe without end, and a probe that never answers reads
 * as no verdict at all.
 */
export const HEALTH_DB_TIMEOUT_MS = 3_000;

@ApiTags('health')
@Controller('health')
export class HealthController {
  /**
   * The SQLite file the gateway opened (null: MySQL, or in memory): its path and identity. A file removed or moved
   * away while open still answers every query through the open handle, but nothing written from then on is there at
   * the next start (which creates an empty database): /health reports it down.
   */
  private readonly sqliteFile: { path: string; dev: number; ino: number } | null;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    const { type, database } = dataSource.options;
    if (type !== 'better-sqlite3' || typeof database !== 'string' || database === ':memory:') {
      this.sqliteFile = null;
      return;
    }
    const opened = statSync(database, { throwIfNoEntry: false });
    this.sqliteFile = opened ? { path: database, dev: opened.dev, ino: opened.ino } : null;
  }

  @Get()
  @ApiOperation({ summary: 'Liveness and database health' })
  @Public()
  @HttpCode(200)
  @ApiOkResponse({
    schema: { example: { status: 'ok', db: 'up' } },
    description: '503 with db "down" when the database does not answer within 3 seconds (or its SQLite file is gone)',
  })
  async health(@Res({ passthrough: true }) res: FastifyReply): Promise<{ status: string; db: string }> {
    try {
      await untilAborted(AbortSignal.timeout(HEALTH_DB_TIMEOUT_MS), () => this.dataSource.query('SELECT 1'));
      if (this.sqliteFile && !(await this.isOpenSqliteFile(this.sqliteFile))) throw new Error('SQLite file gone');
      return { status: 'ok', db: 'up' };
    } catch {
      void res.code(503);
      return { status: 'degraded', db: 'down' };
    }
  }

  /** Whether the file at the opened path is still the one opened. */
  private async isOpenSqliteFile(opened: { path: string; dev: number; ino: number }): Promise<boolean> {
    const now = await stat(opened.path).catch(() => null);
    return now !== null && now.dev === opened.dev && now.ino === opened.ino;
  }
}
