import { Injectable } from '@nestjs/common';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import type { AgentSessionEntity } from '@app/modules/loop-acting/sessions/agent-session.entity';
import { AgentSessionRepository } from '@app/modules/loop-acting/sessions/agent-session.repository';

/** The session a tool-specs request names: of the request's tenant and agent, else 404. */
@Injectable()
export class ToolSpecsSessionReader {
  constructor(private readonly sessions: AgentSessionRepository) {}

  async find(tenantId: string, agentId: string, sessionId: string): Promise<AgentSessionEntity> {
    const session = await this.sessions.find(sessionId);
    if (!session || session.tenantId !== tenantId || session.agentId !== agentId)
      throw new DomainError(
        CommonErrorCode.NOT_FOUND,
        `No session ${sessionId} of agent ${agentId} in your tenant; create one with POST /api/v1/sessions.`,
        { sessionId },
      );
    return session;
  }
}
