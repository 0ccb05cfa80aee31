import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { FindOptionsWhere, Repository } from 'typeorm';
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

/** Reads of the tool log for admins (pending rows are flushed first, so a read sees every finished call). */
@Injectable()
export class ToolCallLogQuery {
  constructor(
    @InjectRepository(ToolCallLogEntity) private readonly rows: Repository<ToolCallLogEntity>,
    private readonly writer: ToolCallLogService,
  ) {}

  async list(filter: ToolCallLogFilter): Promise<[ToolCallLogView[], number]> {
    await this.writer.flush();
    const where: FindOptionsWhere<ToolCallLogEntity> = {};
    if (filter.tenantId !== null) where.tenantId = filter.tenantId;
    if (filter.sessionId) where.sessionId = filter.sessionId;
    if (filter.toolName) where.toolName = filter.toolName;
    if (filter.status) where.status = filter.status;
    const [rows, total] = await this.rows.findAndCount({
      where,
      order: { createdAt: 'ASC', id: 'ASC' },
      skip: filter.skip,
      take: filter.take,
    });
    return [rows.map(toView), total];
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
