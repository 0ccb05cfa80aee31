import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { HotSql } from '@app/database/hot-sql';
import { HitlRequestEntity } from '@app/modules/hitl/requests/hitl-request.entity';
import { McpServiceEntity } from '@app/modules/mcp-services/mcp-service.entity';

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

  /**
   * Journal entries still STARTED, across tenants: read through the index of open entries (partial on SQLite; the
   * literal lets SQLite use it), so a scrape costs the same however large the finished journal grows. Counting every
   * state read the whole journal at each scrape (on SQLite a table scan that blocked the process).
   */
  async startedJournalEntries(): Promise<number> {
    const [row] = await this.sql.all<{ count: string | number }>(
      "SELECT COUNT(*) AS count FROM tool_call_journal WHERE state = 'STARTED'",
      [],
    );
    return Number(row?.count ?? 0);
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
