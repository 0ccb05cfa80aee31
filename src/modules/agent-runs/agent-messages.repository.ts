import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { AgentMessageEntity } from './agent-message.entity';
import type { ConversationMessage, MessageRole, PendingToolCall } from './agent-runs.types';

/** Messages per INSERT statement (11 columns each). */
const INSERT_SLICE = 500;
/** Messages a model round is made from, at most (the latest). */
const LATEST_LIMIT = 100_000;
/**
 * Characters of text (content and tool calls) a model round is made from, at most: more than the largest context
 * window takes (contextWindowTokens is at most 10,000,000), so only a conversation no model could read is cut.
 */
const ROUND_MAX_CHARS = 32 * 1024 * 1024;
/** Characters of text one page of the conversation holds, at most (a longer message comes alone). */
const PAGE_MAX_CHARS = 8 * 1024 * 1024;

export interface NewMessage {
  role: MessageRole;
  content: string | null;
  toolCalls?: PendingToolCall[] | null;
  reasoning?: string | null;
  toolCallId?: string | null;
}

/**
 * A session's conversation. Messages are appended by one writer at a time (the message request that starts a
 * run, then the run's lease holder), inside the transaction of the checkpoint they belong to.
 */
@Injectable()
export class AgentMessagesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async append(
    manager: EntityManager,
    ref: { tenantId: string; sessionId: string; runId: string },
    messages: readonly NewMessage[],
  ): Promise<void> {
    if (messages.length === 0) return;
    const repo = manager.getRepository(AgentMessageEntity);
    const last = await repo
      .createQueryBuilder('m')
      .select('MAX(m.seq)', 'max')
      .where('m.session_id = :id', { id: ref.sessionId })
      .getRawOne<{ max: number | string | null }>();
    let seq = Number(last?.max ?? 0);
    const now = Date.now();
    const rows = messages.map((msg) => ({
      id: randomUUID(),
      sessionId: ref.sessionId,
      seq: ++seq,
      tenantId: ref.tenantId,
      runId: ref.runId,
      role: msg.role,
      content: msg.content,
      toolCalls: msg.toolCalls ?? null,
      reasoning: msg.reasoning ?? null,
      toolCallId: msg.toolCallId ?? null,
      createdAt: now,
    }));
    // In slices: one INSERT of a 5,000-call answer's results passed SQLite's 32,766 bound variables.
    for (let i = 0; i < rows.length; i += INSERT_SLICE)
      await repo.insert(rows.slice(i, i + INSERT_SLICE) as QueryDeepPartialEntity<AgentMessageEntity>[]);
  }

  /**
   * The conversation's messages after `afterSeq`, oldest first, at most `limit` and {@link PAGE_MAX_CHARS} of text (a
   * page of GET .../messages: 1,000 answers of MODEL_MAX_ANSWER_BYTES each were read into memory at once).
   */
  async conversation(sessionId: string, afterSeq: number, limit: number): Promise<ConversationMessage[]> {
    const sizes = await this.sizes(sessionId, afterSeq, 'ASC', limit);
    const n = withinBudget(sizes, PAGE_MAX_CHARS);
    if (n === 0) return [];
    return (await this.range(sessionId, afterSeq + 1, sizes[n - 1].seq)).map(toConversationMessage);
  }

  /**
   * The latest `limit` messages of the conversation, oldest first, within {@link ROUND_MAX_CHARS} of text: what a
   * model round is made from. A longer conversation is cut at its oldest end (the first `limit` were read: the model
   * missed the user's new message; a whole one was read into memory every round, however large), and tool answers
   * left at the cut without their call are left out too.
   */
  async latest(sessionId: string, limit = LATEST_LIMIT): Promise<ConversationMessage[]> {
    const sizes = await this.sizes(sessionId, Number.MAX_SAFE_INTEGER, 'DESC', limit);
    const n = withinBudget(sizes, ROUND_MAX_CHARS);
    if (n === 0) return [];
    const rows = await this.range(sessionId, sizes[n - 1].seq, sizes[0].seq);
    const start = rows.findIndex((r) => r.role !== 'tool');
    return (start < 0 ? [] : rows.slice(start)).map(toConversationMessage);
  }

  /** The seq and text size of up to `limit` messages from `fromSeq` (exclusive) on in `order`, without their text. */
  private async sizes(
    sessionId: string,
    fromSeq: number,
    order: 'ASC' | 'DESC',
    limit: number,
  ): Promise<Array<{ seq: number; size: number }>> {
    const chars = this.dataSource.options.type === 'better-sqlite3' ? 'LENGTH' : 'CHAR_LENGTH';
    const rows = await this.dataSource
      .getRepository(AgentMessageEntity)
      .createQueryBuilder('m')
      .select('m.seq', 'seq')
      .addSelect(
        `COALESCE(${chars}(m.content), 0) + COALESCE(${chars}(m.tool_calls), 0) + COALESCE(${chars}(m.reasoning), 0)`,
        'size',
      )
      .where(`m.session_id = :sessionId AND m.seq ${order === 'ASC' ? '>' : '<'} :fromSeq`, { sessionId, fromSeq })
      .orderBy('m.seq', order)
      .limit(limit)
      .getRawMany<{ seq: number | string; size: number | string }>();
    return rows.map((r) => ({ seq: Number(r.seq), size: Number(r.size) }));
  }

  /** The messages from `fromSeq` to `toSeq` (both included), oldest first. */
  private range(sessionId: string, fromSeq: number, toSeq: number): Promise<AgentMessageEntity[]> {
    return this.dataSource
      .getRepository(AgentMessageEntity)
      .createQueryBuilder('m')
      .where('m.session_id = :sessionId AND m.seq >= :fromSeq AND m.seq <= :toSeq', { sessionId, fromSeq, toSeq })
      .orderBy('m.seq', 'ASC')
      .getMany();
  }
}

/** How many of `sizes` (in reading order) fit in `budget` together; the first always does. */
function withinBudget(sizes: ReadonlyArray<{ size: number }>, budget: number): number {
  let total = 0;
  for (const [i, { size }] of sizes.entries()) {
    total += size;
    if (total > budget) return Math.max(i, 1);
  }
  return sizes.length;
}

function toConversationMessage(r: AgentMessageEntity): ConversationMessage {
  return {
    seq: r.seq,
    runId: r.runId,
    role: r.role,
    content: r.content,
    toolCalls: r.toolCalls,
    reasoning: r.reasoning,
    toolCallId: r.toolCallId,
    createdAt: r.createdAt,
  };
}
