import type { AgentProvision } from '@app/modules/tool-registry/tool-registry.types';
import type { AgentEntity } from '../agent.entity';

/**
 * What the agent's configuration provides to built-ins (the DEPENDENCIES layer checks them beside the session's
 * capabilities). Computed from the agent row alone, so it is cached with the agent's view and changes with it.
 */
export function agentProvisions(agent: AgentEntity): AgentProvision[] {
  const provided: AgentProvision[] = [];
  if ((agent.skillIds ?? []).length > 0) provided.push('SKILL');
  if ((agent.knowledgeBaseIds ?? []).length > 0) provided.push('KNOWLEDGE_BASE');
  if ((agent.subAgentIds ?? []).length > 0) provided.push('SUB_AGENT');
  return provided;
}

/** How an admin provides what a built-in lacks (the DEPENDENCIES layer's reason). */
export const PROVISION_HINTS: Record<AgentProvision, string> = {
  SKILL: 'bind a skill to the agent (PUT /api/v1/admin/agents/{id}/skills)',
  KNOWLEDGE_BASE: 'bind a knowledge base to the agent (PUT /api/v1/admin/agents/{id}/knowledge-bases)',
  SUB_AGENT: "list the agents it may delegate to in the agent's subAgentIds (PATCH /api/v1/admin/agents/{id})",
};
