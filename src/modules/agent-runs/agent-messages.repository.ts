import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { AgentMessageEntity } from './agent-message.entity';
import type { ConversationMessage, MessageRole, PendingToolCall } from './agent-runs.types';

/** Messages per INSERT statement (10 columns each). */
const INSERT_SLICE = 500;
/** Messages a model round is made from, at most (the latest). */
const LATEST_LIMIT = 100_000;

export interface NewMessage {
  role: MessageRole;
  content: string | null;
  toolCalls?: PendingToolCall[] | null;
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
      toolCallId: msg.toolCallId ?? null,
      createdAt: now,
    }));
    // In slices: one INSERT of a 5,000-call answer's results passed SQLite's 32,766 bound variables.
    for (let i = 0; i < rows.length; i += INSERT_SLICE) await repo.insert(rows.slice(i, i + INSERT_SLICE));
  }

  /** The conversation's messages after `afterSeq`, oldest first, at most `limit` (a page of GET .../messages). */
  async conversation(sessionId: string, afterSeq: number, limit: number): Promise<ConversationMessage[]> {
    const rows = await this.dataSource
      .getRepository(AgentMessageEntity)
      .createQueryBuilder('m')
      .where('m.session_id = :sessionId AND m.seq > :afterSeq', { sessionId, afterSeq })
      .orderBy('m.seq', 'ASC')
      .limit(limit)
      .getMany();
    return rows.map(toConversationMessage);
  }

  /**
   * The latest `limit` messages of the conversation, oldest first: what a model round is made from. A longer
   * conversation is cut at its oldest end (the first `limit` were read: the model missed the user's new message),
   * and tool answers left at the cut without their call are left out too.
   */
  async latest(sessionId: string, limit = LATEST_LIMIT): Promise<ConversationMessage[]> {
    const rows = await this.dataSource
      .getRepository(AgentMessageEntity)
      .createQueryBuilder('m')
      .where('m.session_id = :sessionId', { sessionId })
      .orderBy('m.seq', 'DESC')
      .limit(limit)
      .getMany();
    rows.reverse();
    const start = rows.findIndex((r) => r.role !== 'tool');
    return (start < 0 ? [] : rows.slice(start)).map(toConversationMessage);
  }
}

function toConversationMessage(r: AgentMessageEntity): ConversationMessage {
  return {
    seq: r.seq,
    runId: r.runId,
    role: r.role,
    content: r.content,
    toolCalls: r.toolCalls,
    toolCallId: r.toolCallId,
    createdAt: r.createdAt,
  };
}
