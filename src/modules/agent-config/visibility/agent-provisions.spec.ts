import type { AgentEntity } from '../agent.entity';
import { agentProvisions } from './agent-provisions';

const agent = (overrides: Partial<AgentEntity>): AgentEntity =>
  ({ skillIds: [], knowledgeBaseIds: null, subAgentIds: null, ...overrides }) as AgentEntity;

describe('agentProvisions', () => {
  it('provides nothing for an agent without skills, knowledge bases or sub-agents (NULL reads as none)', () => {
    expect(agentProvisions(agent({}))).toEqual([]);
    expect(agentProvisions(agent({ knowledgeBaseIds: [], subAgentIds: [] }))).toEqual([]);
  });
  it('provides each one the agent is configured with', () => {
    expect(agentProvisions(agent({ skillIds: ['s'], knowledgeBaseIds: ['k'], subAgentIds: ['a'] }))).toEqual([
      'SKILL',
      'KNOWLEDGE_BASE',
      'SUB_AGENT',
    ]);
    expect(agentProvisions(agent({ subAgentIds: ['a'] }))).toEqual(['SUB_AGENT']);
  });
});
