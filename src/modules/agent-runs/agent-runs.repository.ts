import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { AgentRunEntity } from './agent-run.entity';
import { ACTIVE_RUN_STATUSES } from './agent-runs.types';

/** The run's lease was lost (another instance took the run over): stop working on it, write nothing more. */
export class RunLeaseLostError extends Error {
  override name = 'RunLeaseLostError';
}

/** Reads of runs and the checkpoint writes of the worker that holds a run's lease. */
@Injectable()
export class AgentRunsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  find(id: string): Promise<AgentRunEntity | null> {
    return this.dataSource.getRepository(AgentRunEntity).findOneBy({ id });
  }

  findByMessage(sessionId: string, clientMessageId: string): Promise<AgentRunEntity | null> {
    return this.dataSource.getRepository(AgentRunEntity).findOneBy({ sessionId, clientMessageId });
  }

  /** The session's run that still holds its conversation (queued, running, or waiting for a decision). */
  findActive(sessionId: string, manager: EntityManager = this.dataSource.manager): Promise<AgentRunEntity | null> {
    return manager.getRepository(AgentRunEntity).findOneBy({ sessionId, status: In(ACTIVE_RUN_STATUSES as string[]) });
  }

  async insert(manager: EntityManager, row: AgentRunEntity): Promise<void> {
    await manager.getRepository(AgentRunEntity).insert(row as QueryDeepPartialEntity<AgentRunEntity>);
  }

  /**
   * A checkpoint write of the lease holder: applies `changes` only while `owner` still holds the run RUNNING.
   * @throws RunLeaseLostError when it does not (the transaction it runs in is rolled back).
   */
  async checkpoint(
    manager: EntityManager,
    run: AgentRunEntity,
    owner: string,
    changes: Partial<AgentRunEntity>,
  ): Promise<void> {
    const now = Date.now();
    const result = await manager
      .createQueryBuilder()
      .update(AgentRunEntity)
      .set({ ...changes, updatedAt: now })
      .where('id = :id AND owner = :owner AND status = :status', { id: run.id, owner, status: 'RUNNING' })
      .execute();
    if ((result.affected ?? 0) !== 1) throw new RunLeaseLostError(`run ${run.id} is no longer held by ${owner}`);
    Object.assign(run, changes, { updatedAt: now });
  }
}
