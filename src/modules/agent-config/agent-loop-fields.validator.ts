import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { validationFailed } from '@app/common/errors/validation';
import { ModelProvidersService } from '@app/modules/model-providers/model-providers.service';
import { AgentConfigRepository } from './agent-config.repository';
import type { AgentEntity } from './agent.entity';

/** The agent-loop fields of an agent create or PATCH, as far as they are given. */
export interface AgentLoopFields {
  modelProviderId?: string | null;
  subAgentIds?: string[] | null;
}

/**
 * Checks the fields the gateway's own loop uses: the model provider must be the agent's tenant's own or
 * platform-wide, and every sub-agent an agent of the same tenant other than itself (another tenant's is 404,
 * as if it did not exist).
 */
@Injectable()
export class AgentLoopFieldsValidator {
  constructor(
    private readonly providers: ModelProvidersService,
    private readonly repo: AgentConfigRepository,
  ) {}

  async check(tenantId: string, selfId: string | null, fields: AgentLoopFields): Promise<void> {
    if (fields.modelProviderId) await this.providers.loadVisible(tenantId, fields.modelProviderId);
    for (const id of fields.subAgentIds ?? []) {
      if (id === selfId)
        throw validationFailed([
          {
            field: 'subAgentIds',
            problems: [`an agent cannot list itself as a sub-agent; remove ${id} (its own id) from subAgentIds`],
          },
        ]);
      assertSubAgent(await this.repo.findAgent(id), id, tenantId);
    }
  }

  /**
   * In the transaction `m` that writes the agent: each sub-agent read again and locked until it ends, so one deleted
   * meanwhile is refused here, or (deleted after) removed from the list by its deletion, never left dangling.
   */
  async lockSubAgents(m: EntityManager, tenantId: string, subAgentIds: string[] | null | undefined): Promise<void> {
    for (const id of subAgentIds ?? []) assertSubAgent(await this.repo.lockAgent(m, id), id, tenantId);
  }
}

function assertSubAgent(agent: AgentEntity | null, id: string, tenantId: string): void {
  if (!agent || agent.tenantId !== tenantId) {
    throw new DomainError(
      CommonErrorCode.NOT_FOUND,
      `No agent ${id} in tenant ${tenantId}; sub-agents must be agents of the same tenant: pick their ids from GET /api/v1/admin/agents.`,
      { subAgentId: id },
    );
  }
}
