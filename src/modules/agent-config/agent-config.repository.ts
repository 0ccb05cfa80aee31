import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Like, Repository } from 'typeorm';
import { AgentEntity } from './agent.entity';
import { AgentToolBindingEntity } from './agent-tool-binding.entity';
import { TenantCapabilityEntity } from './tenant-capability.entity';

/** Queries of agents, their tool bindings and tenant capabilities. */
@Injectable()
export class AgentConfigRepository {
  constructor(
    @InjectRepository(AgentEntity) private readonly agents: Repository<AgentEntity>,
    @InjectRepository(AgentToolBindingEntity) private readonly bindings: Repository<AgentToolBindingEntity>,
    @InjectRepository(TenantCapabilityEntity) private readonly capabilities: Repository<TenantCapabilityEntity>,
  ) {}

  findAgent(id: string): Promise<AgentEntity | null> {
    return this.agents.findOne({ where: { id } });
  }

  listAgents(tenantId: string | null, skip: number, take: number): Promise<[AgentEntity[], number]> {
    return this.agents.findAndCount({
      where: tenantId ? { tenantId } : {},
      order: { name: 'ASC', id: 'ASC' },
      skip,
      take,
    });
  }

  async boundToolIds(agentId: string): Promise<string[]> {
    const rows = await this.bindings.find({ where: { agentId }, order: { createdAt: 'ASC', toolId: 'ASC' } });
    return rows.map((r) => r.toolId);
  }

  async boundToolIdsOf(agentIds: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(agentIds.map((id) => [id, []]));
    if (agentIds.length === 0) return out;
    const rows = await this.bindings.find({
      where: { agentId: In(agentIds) },
      order: { createdAt: 'ASC', toolId: 'ASC' },
    });
    for (const r of rows) out.get(r.agentId)!.push(r.toolId);
    return out;
  }

  findCapability(tenantId: string): Promise<TenantCapabilityEntity | null> {
    return this.capabilities.findOne({ where: { tenantId } });
  }

  insertAgent(m: EntityManager, row: AgentEntity): Promise<unknown> {
    return m.getRepository(AgentEntity).insert(row);
  }

  /**
   * The agent as last committed, its row locked until the transaction `m` ends (MySQL; SQLite runs one transaction
   * at a time): a change computed from it cannot overwrite a write that landed since it was listed.
   */
  lockAgent(m: EntityManager, id: string): Promise<AgentEntity | null> {
    const mysql = m.connection.options.type !== 'better-sqlite3';
    return m
      .getRepository(AgentEntity)
      .findOne({ where: { id }, ...(mysql && { lock: { mode: 'pessimistic_write' as const } }) });
  }

  updateAgent(m: EntityManager, id: string, changes: Partial<AgentEntity>): Promise<unknown> {
    return m.getRepository(AgentEntity).update({ id }, changes);
  }

  /** Agents whose `list` (a JSON text column of ids) holds `id`: matched as the quoted id, then checked. */
  async agentsListing(
    m: EntityManager,
    list: 'skillIds' | 'subAgentIds' | 'knowledgeBaseIds',
    id: string,
  ): Promise<AgentEntity[]> {
    const rows = await m.getRepository(AgentEntity).find({ where: { [list]: Like(`%"${id}"%`) as never } });
    return rows.filter((r) => (r[list] ?? []).includes(id));
  }

  /** Deletes the agent, its bindings, and its id from the sub-agents of the agents that delegated to it. */
  async deleteAgent(m: EntityManager, id: string): Promise<void> {
    // Locked first: a write naming it as a sub-agent (which locks it) commits before the listing below, or waits and
    // then finds it gone.
    await this.lockAgent(m, id);
    for (const delegating of await this.agentsListing(m, 'subAgentIds', id)) {
      const subAgentIds = delegating.subAgentIds!.filter((s) => s !== id);
      await this.updateAgent(m, delegating.id, {
        subAgentIds: subAgentIds.length ? subAgentIds : null,
        updatedAt: Date.now(),
      });
    }
    await m.getRepository(AgentToolBindingEntity).delete({ agentId: id });
    await m.getRepository(AgentEntity).delete({ id });
  }

  /**
   * Binding writes of one agent run one after another (the agent's row locked), so two at once never collide; false
   * (nothing written) when the agent is gone, e.g. deleted while the request was checked.
   */
  async replaceBindings(m: EntityManager, agentId: string, toolIds: string[]): Promise<boolean> {
    if (!(await this.lockAgent(m, agentId))) return false;
    const repo = m.getRepository(AgentToolBindingEntity);
    await repo.delete({ agentId });
    const now = Date.now();
    if (toolIds.length) await repo.insert(toolIds.map((toolId, i) => ({ agentId, toolId, createdAt: now + i })));
    return true;
  }

  /**
   * A tool already bound stays as it is; locked as {@link replaceBindings}, so the same add twice at once binds once
   * and two adds at once cannot pass `max` together.
   */
  async addBinding(
    m: EntityManager,
    agentId: string,
    toolId: string,
    max: number,
  ): Promise<'bound' | 'no-agent' | 'full'> {
    if (!(await this.lockAgent(m, agentId))) return 'no-agent';
    const repo = m.getRepository(AgentToolBindingEntity);
    if (await repo.exists({ where: { agentId, toolId } })) return 'bound';
    if ((await repo.count({ where: { agentId } })) >= max) return 'full';
    await repo.insert({ agentId, toolId, createdAt: Date.now() });
    return 'bound';
  }

  async removeBinding(m: EntityManager, agentId: string, toolId: string): Promise<boolean> {
    const result = await m.getRepository(AgentToolBindingEntity).delete({ agentId, toolId });
    return (result.affected ?? 0) > 0;
  }

  /**
   * One statement (INSERT ... ON DUPLICATE KEY UPDATE / ON CONFLICT DO UPDATE): an UPDATE that found no row then an
   * INSERT deadlocked on MySQL when two requests set a new tenant's policy at once (each held the gap the other
   * inserted into).
   */
  async upsertCapability(m: EntityManager, row: TenantCapabilityEntity): Promise<void> {
    await m.getRepository(TenantCapabilityEntity).upsert(row, { conflictPaths: ['tenantId'] });
  }
}
