import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { AgentSessionEntity } from '@app/modules/loop-acting/sessions/agent-session.entity';

/** The session a tool-specs request names: of the request's tenant and agent, else 404. */
@Injectable()
export class ToolSpecsSessionReader {
  constructor(@InjectRepository(AgentSessionEntity) private readonly sessions: Repository<AgentSessionEntity>) {}

  async find(tenantId: string, agentId: string, sessionId: string): Promise<AgentSessionEntity> {
    const session = await this.sessions.findOne({ where: { id: sessionId } });
    if (!session || session.tenantId !== tenantId || session.agentId !== agentId)
      throw new DomainError(
        CommonErrorCode.NOT_FOUND,
        `No session ${sessionId} of agent ${agentId} in your tenant; create one with POST /api/v1/sessions.`,
        { sessionId },
      );
    return session;
  }
}
