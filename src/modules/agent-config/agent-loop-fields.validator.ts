import { Injectable } from '@nestjs/common';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { validationFailed } from '@app/common/errors/validation';
import { ModelProvidersService } from '@app/modules/model-providers/model-providers.service';
import { AgentConfigRepository } from './agent-config.repository';

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
        throw validationFailed([{ field: 'subAgentIds', problems: ['an agent cannot list itself as a sub-agent'] }]);
      const agent = await this.repo.findAgent(id);
      if (!agent || agent.tenantId !== tenantId) {
        throw new DomainError(
          CommonErrorCode.NOT_FOUND,
          `No agent ${id} in tenant ${tenantId}; sub-agents must be agents of the same tenant.`,
          { subAgentId: id },
        );
      }
    }
  }
}
