import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { HotSql } from '@app/database/hot-sql';
import { HitlRequestEntity } from '@app/modules/hitl/requests/hitl-request.entity';
import { McpServiceEntity } from '@app/modules/mcp-services/mcp-service.entity';

export interface StateCount {
  state: string;
  count: number;
}

export interface McpServiceHealthRow {
  name: string;
  scope: string;
  health: string;
}

/**
 * The read-only aggregates a scrape needs, one statement each. They read the tables directly (not through the
 * owning modules' repositories) so that the metrics module depends on no feature module.
 */
@Injectable()
export class MetricsStateQuery {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sql: HotSql,
  ) {}

  /** Journal entries per state, across tenants (the journal is a hot table: read the one way it is, raw SQL). */
  async journalStates(): Promise<StateCount[]> {
    const rows = await this.sql.all<{ state: string; count: string | number }>(
      'SELECT state, COUNT(*) AS count FROM tool_call_journal GROUP BY state',
      [],
    );
    return rows.map((r) => ({ state: r.state, count: Number(r.count) }));
  }

  /** HITL requests waiting for a human, across tenants. */
  pendingHitlRequests(): Promise<number> {
    return this.dataSource.getRepository(HitlRequestEntity).count({ where: { status: 'PENDING' } });
  }

  /** Every registered MCP service and the health its last check recorded. */
  async mcpServiceHealth(): Promise<McpServiceHealthRow[]> {
    const rows = await this.dataSource
      .getRepository(McpServiceEntity)
      .find({ select: { name: true, scopeKey: true, health: true } });
    return rows.map((r) => ({ name: r.name, scope: r.scopeKey, health: r.health }));
  }
}
