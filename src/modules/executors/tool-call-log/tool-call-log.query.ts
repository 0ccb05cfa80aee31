import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { HotSql, sqlRowCount } from '@app/database/hot-sql';
import { HotTable } from '@app/database/hot-table';
import { ToolCallLogEntity } from './tool-call-log.entity';
import { ToolCallLogService } from './tool-call-log.service';
import { toIso } from '@app/database/epoch-ms.transformer';

export interface ToolCallLogFilter {
  /** null: every tenant (platform admin). */
  tenantId: string | null;
  sessionId?: string;
  toolName?: string;
  status?: string;
  skip: number;
  take: number;
}

export interface ToolCallLogView {
  id: string;
  tenantId: string | null;
  sessionId: string | null;
  agentId: string | null;
  userId: string | null;
  toolCallId: string | null;
  toolId: string | null;
  toolName: string;
  status: string;
  entry: string;
  arguments: unknown;
  attempts: number;
  durationMs: number;
  errorClass: string | null;
  resultChars: number;
  resultPreview: string;
  createdAt: string;
}

/**
 * Reads of the tool log for admins (pending rows are flushed first, so a read sees every finished call), the one
 * way the log is written: raw SQL through {@link HotSql}, columns from the entity.
 */
@Injectable()
export class ToolCallLogQuery {
  private readonly table: HotTable<ToolCallLogEntity>;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly sql: HotSql,
    private readonly writer: ToolCallLogService,
  ) {
    this.table = new HotTable(dataSource, ToolCallLogEntity);
  }

  async list(filter: ToolCallLogFilter): Promise<[ToolCallLogView[], number]> {
    await this.writer.flush();
    const where: string[] = [];
    const params: unknown[] = [];
    const filters: Array<[keyof ToolCallLogEntity, string | null | undefined]> = [
      ['tenantId', filter.tenantId],
      ['sessionId', filter.sessionId],
      ['toolName', filter.toolName],
      ['status', filter.status],
    ];
    for (const [property, value] of filters) {
      if (value === null || value === undefined || value === '') continue;
      where.push(`${this.table.column(property)} = ?`);
      params.push(value);
    }
    const clause = where.length ? ` WHERE ${where.join(' AND ')}` : '';
    const take = sqlRowCount(filter.take);
    const skip = sqlRowCount(filter.skip);
    const [rows, [count]] = await Promise.all([
      this.sql.all(
        `SELECT ${this.table.columnList} FROM tool_call_log${clause} ORDER BY created_at, id LIMIT ${take} OFFSET ${skip}`,
        params,
      ),
      this.sql.all<{ total: string | number }>(`SELECT COUNT(*) AS total FROM tool_call_log${clause}`, params),
    ]);
    return [rows.map((r) => toView(this.table.fromRow(r))), Number(count?.total ?? 0)];
  }
}

function toView(r: ToolCallLogEntity): ToolCallLogView {
  let args: unknown = r.argumentsRedacted;
  try {
    args = JSON.parse(r.argumentsRedacted);
  } catch {
    /* stored text that is not JSON stays text */
  }
  const { argumentsRedacted: _omit, createdAt, ...rest } = r;
  return { ...rest, arguments: args, createdAt: toIso(createdAt)! };
}
