import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { FastifyReply } from 'fastify';
import { Public } from '@app/common/auth/auth.decorators';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  @Get()
  @ApiOperation({ summary: 'Liveness and database health' })
  @Public()
  @HttpCode(200)
  @ApiOkResponse({
    schema: { example: { status: 'ok', db: 'up' } },
    description: '503 with db "down" when the database does not answer',
  })
  async health(@Res({ passthrough: true }) res: FastifyReply): Promise<{ status: string; db: string }> {
    try {
      await this.dataSource.query('SELECT 1');
      return { status: 'ok', db: 'up' };
    } catch {
      void res.code(503);
      return { status: 'degraded', db: 'down' };
    }
  }
}
