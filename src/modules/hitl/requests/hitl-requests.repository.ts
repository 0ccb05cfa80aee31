import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, FindOptionsWhere, Repository } from 'typeorm';
import { HitlRequestEntity } from './hitl-request.entity';

export interface HitlDecisionRecord {
  decision: string;
  decisionMessage: string | null;
  decidedBy: string;
  clientMessageId: string;
}

/** Queries of HITL requests. */
@Injectable()
export class HitlRequestsRepository {
  constructor(@InjectRepository(HitlRequestEntity) private readonly requests: Repository<HitlRequestEntity>) {}

  async insert(m: EntityManager, row: HitlRequestEntity): Promise<void> {
    await m.getRepository(HitlRequestEntity).insert(row);
  }

  /** `manager`: read in that transaction. */
  find(id: string, manager?: EntityManager): Promise<HitlRequestEntity | null> {
    return (manager?.getRepository(HitlRequestEntity) ?? this.requests).findOne({ where: { id } });
  }

  /** The request if it belongs to `tenantId` (any tenant for null: the platform key). */
  async findInScope(id: string, tenantId: string | null): Promise<HitlRequestEntity | null> {
    const row = await this.find(id);
    return row && (tenantId === null || row.tenantId === tenantId) ? row : null;
  }

  /**
   * Persists a decision on a PENDING request (compare-and-set). Returns false when the request was already
   * decided, unless it was decided by this same clientMessageId with this same decision (a resume being recovered).
   * `manager`: in that transaction.
   */
  async decide(id: string, record: HitlDecisionRecord, manager?: EntityManager): Promise<boolean> {
    const requests = manager?.getRepository(HitlRequestEntity) ?? this.requests;
    const result = await requests.update(
      { id, status: 'PENDING' },
      { ...record, status: 'DECIDED', decidedAt: Date.now() },
    );
    if ((result.affected ?? 0) === 1) return true;
    const row = await requests.findOne({ where: { id } });
    return (
      row?.status === 'DECIDED' && row.clientMessageId === record.clientMessageId && row.decision === record.decision
    );
  }

  /** The session's request decided under `clientMessageId` (one at most: a clientMessageId decides once). */
  findDecidedUnder(sessionId: string, clientMessageId: string): Promise<HitlRequestEntity | null> {
    return this.requests.findOne({ where: { sessionId, clientMessageId, status: 'DECIDED' } });
  }

  /** The session's latest request decided for tool call `toolCallId`. */
  findLatestDecidedFor(sessionId: string, toolCallId: string): Promise<HitlRequestEntity | null> {
    return this.requests.findOne({
      where: { sessionId, toolCallId, status: 'DECIDED' },
      order: { decidedAt: 'DESC' },
    });
  }

  list(
    tenantId: string | null,
    status: string | undefined,
    skip: number,
    take: number,
  ): Promise<[HitlRequestEntity[], number]> {
    const where: FindOptionsWhere<HitlRequestEntity> = {};
    if (tenantId !== null) where.tenantId = tenantId;
    if (status) where.status = status as HitlRequestEntity['status'];
    return this.requests.findAndCount({ where, order: { createdAt: 'ASC', id: 'ASC' }, skip, take });
  }
}
