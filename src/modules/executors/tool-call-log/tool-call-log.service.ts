import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { HotSql } from '@app/database/hot-sql';
import { HotTable } from '@app/database/hot-table';
import { timeOrderedId } from '@app/common/time-ordered-id';
import { ToolCallLogEntity, type ToolCallLogStatus } from './tool-call-log.entity';
import { redactedPreview } from '@app/common/redaction';
import { loggedArguments } from './tool-call-log.arguments';

const PREVIEW_CHARS = 2000;
const FLUSH_DELAY_MS = 20;
const MAX_BATCH = 200;

export interface ToolCallLogInput {
  tenantId: string | null;
  sessionId?: string | null;
  agentId?: string | null;
  userId?: string | null;
  toolCallId?: string | null;
  toolId?: string | null;
  toolName: string;
  status: ToolCallLogStatus;
  entry: 'ACT' | 'RESUME' | 'DIRECT';
  /** As submitted (an object, or the model's text); stored redacted with the built-in keys and `redactFields`. */
  arguments: unknown;
  redactFields?: readonly string[];
  attempts: number;
  durationMs: number;
  errorClass?: string | null;
  content: string;
}

/**
 * The audit trail of tool calls. Rows are written behind the response in small batches (one multi-row
 * INSERT per batch) so the hot path pays no extra round trip; the journal, not this log, is what recovery
 * relies on. Pending rows are flushed on shutdown and before every read. A call only queues its facts: the
 * row (redaction, preview, id) is built when the batch is written, after the response went out. Row ids are
 * time-ordered, so the log's indexes grow at their end.
 */
@Injectable()
export class ToolCallLogService implements OnApplicationShutdown {
  private readonly logger = new Logger(ToolCallLogService.name);
  private pending: Array<{ input: ToolCallLogInput; at: number }> = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  private readonly table: HotTable<ToolCallLogEntity>;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly sql: HotSql,
  ) {
    this.table = new HotTable(dataSource, ToolCallLogEntity);
  }

  record(input: ToolCallLogInput): void {
    this.pending.push({ input, at: Date.now() });
    if (this.pending.length >= MAX_BATCH) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
  }

  /** Writes every pending row; resolves when they are committed. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batch = this.pending;
    this.pending = [];
    this.flushing = this.flushing.then(async () => {
      for (let i = 0; i < batch.length; i += MAX_BATCH) {
        const slice = batch.slice(i, i + MAX_BATCH);
        try {
          const chunk = slice.map(({ input, at }) => logRow(input, at));
          await this.sql.run(
            `INSERT INTO tool_call_log (${this.table.columnList}) VALUES ${chunk.map(() => this.table.rowMarks).join(', ')}`,
            chunk.flatMap((row) => this.table.values(row)),
          );
        } catch (err) {
          this.logger.error(`Could not write ${slice.length} tool log row(s): ${(err as Error).message}`);
        }
      }
    });
    return this.flushing;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.flush();
  }
}

function logRow(input: ToolCallLogInput, at: number): ToolCallLogEntity {
  const fields = input.redactFields ?? [];
  return {
    id: timeOrderedId(at),
    tenantId: input.tenantId,
    sessionId: input.sessionId ?? null,
    agentId: input.agentId ?? null,
    userId: input.userId ?? null,
    toolCallId: input.toolCallId ?? null,
    toolId: input.toolId ?? null,
    toolName: input.toolName,
    status: input.status,
    entry: input.entry,
    argumentsRedacted: loggedArguments(input.arguments, fields),
    attempts: input.attempts,
    durationMs: Math.round(input.durationMs),
    errorClass: input.errorClass ?? null,
    resultChars: input.content.length,
    resultPreview: redactedPreview(input.content, fields, PREVIEW_CHARS),
    createdAt: at,
  };
}
