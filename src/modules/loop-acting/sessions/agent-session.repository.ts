import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { AgentSessionEntity } from './agent-session.entity';
import type { TodoItem } from './session.types';

/** Queries of sessions. Every state change is a compare-and-set on `lock_version`. */
@Injectable()
export class AgentSessionRepository {
  constructor(@InjectRepository(AgentSessionEntity) private readonly sessions: Repository<AgentSessionEntity>) {}

  find(id: string): Promise<AgentSessionEntity | null> {
    return this.sessions.findOne({ where: { id } });
  }

  async insert(row: AgentSessionEntity): Promise<void> {
    await this.sessions.insert(row as QueryDeepPartialEntity<AgentSessionEntity>);
  }

  /** Applies `changes` only if nobody moved the session since `seenVersion`; false when someone did. */
  async compareAndSet(id: string, seenVersion: number, changes: Partial<AgentSessionEntity>): Promise<boolean> {
    const result = await this.sessions.update(
      { id, lockVersion: seenVersion },
      { ...changes, lockVersion: seenVersion + 1, updatedAt: Date.now() } as QueryDeepPartialEntity<AgentSessionEntity>,
    );
    return (result.affected ?? 0) === 1;
  }

  /** Replaces the todo list (the session's own slot; no version bump, it never changes the session's state). */
  async setTodoList(id: string, items: TodoItem[]): Promise<void> {
    await this.sessions.update({ id }, { todoList: items, updatedAt: Date.now() } as QueryDeepPartialEntity<AgentSessionEntity>);
  }

  /** Records a higher iteration without a version bump (monotonic, so concurrent acts cannot conflict). */
  async raiseIteration(id: string, iteration: number): Promise<void> {
    await this.sessions
      .createQueryBuilder()
      .update()
      .set({ iteration })
      .where('id = :id AND iteration < :iteration', { id, iteration })
      .execute();
  }
}
