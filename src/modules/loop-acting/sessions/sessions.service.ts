import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AgentConfigService } from '@app/modules/agent-config/agent-config.service';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import type { AuthContext } from '@app/common/auth/auth-context';
import { toIso } from '@app/database/epoch-ms.transformer';
import { AgentSessionRepository } from './agent-session.repository';
import { AgentSessionEntity } from './agent-session.entity';
import { CreateSessionDto, SessionDto } from './sessions.dto';

/** Creating and reading sessions; the tenant always comes from the runtime key. */
@Injectable()
export class SessionsService {
  constructor(
    private readonly sessions: AgentSessionRepository,
    private readonly agents: AgentConfigService,
  ) {}

  async create(auth: AuthContext, dto: CreateSessionDto): Promise<SessionDto> {
    const agent = await this.agents.loadAgent({ tenantId: auth.tenantId }, dto.agentId);
    const now = Date.now();
    const row: AgentSessionEntity = {
      id: randomUUID(),
      tenantId: agent.tenantId,
      agentId: agent.id,
      userId: dto.userId,
      permissions: dto.permissions,
      capabilities: dto.capabilities ?? [],
      status: 'ACTIVE',
      iteration: 0,
      iterationBudget: agent.maxIterations,
      hitlPending: false,
      hitlRequest: null,
      pendingBatch: null,
      todoList: [],
      activeSkill: null,
      lockVersion: 0,
      createdAt: now,
      updatedAt: now,
    };
    await this.sessions.insert(row);
    return toSessionDto(row);
  }

  async get(auth: AuthContext, id: string): Promise<SessionDto> {
    return toSessionDto(await this.load(auth, id));
  }

  /** The session if it belongs to the caller's tenant (otherwise 404, as if it did not exist). */
  async load(auth: Pick<AuthContext, 'tenantId'>, id: string): Promise<AgentSessionEntity> {
    return this.inScope(auth, id, await this.sessions.find(id));
  }

  /** `row` (session `id` as read) if it belongs to the caller's tenant, otherwise 404 as if it did not exist. */
  inScope(auth: Pick<AuthContext, 'tenantId'>, id: string, row: AgentSessionEntity | null): AgentSessionEntity {
    if (!row || (auth.tenantId !== null && row.tenantId !== auth.tenantId)) {
      throw new DomainError(
        CommonErrorCode.NOT_FOUND,
        `No session ${id} in your tenant; create one with POST /api/v1/sessions.`,
      );
    }
    return row;
  }
}

function toSessionDto(s: AgentSessionEntity): SessionDto {
  return {
    id: s.id,
    agentId: s.agentId,
    userId: s.userId,
    status: s.status,
    iteration: s.iteration,
    hitlPending: s.hitlPending,
    hitlRequest: s.hitlRequest,
    todoList: s.todoList,
    activeSkill: s.activeSkill,
    createdAt: toIso(s.createdAt)!,
    updatedAt: toIso(s.updatedAt)!,
  };
}
