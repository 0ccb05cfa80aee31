import { nameKeyOf } from '@app/common/name-key';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { randomUUID } from 'node:crypto';
import { AgentConfigRepository } from './agent-config.repository';
import { AgentEntity } from './agent.entity';
import { AgentConfigErrorCode } from './agent-config.errors';
import { AgentSkillIdsGuard } from './agent-skill-ids.guard';
import {
  AGENT_TOOL_BINDINGS_MAX,
  AgentDto,
  AgentPageDto,
  CreateAgentDto,
  TenantCapabilitiesDto,
  TenantCapabilitiesResponseDto,
  UpdateAgentDto,
} from './agent-config.dto';
import { ToolRegistryService } from '@app/modules/tool-registry/tool-registry.service';
import { ConfigVersionService } from '@app/database/config-version.service';
import { isDeadlock, isUniqueViolation } from '@app/database/unique-violation';
import { toIso } from '@app/database/epoch-ms.transformer';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { validationFailed } from '@app/common/errors/validation';
import type { AuthContext } from '@app/common/auth/auth-context';
import { PageQueryDto, pageOf, pageWindow } from '@app/common/dto/page.dto';
import { AgentLoopFieldsValidator } from './agent-loop-fields.validator';

/** Agents, their tool bindings and the tenant capability policy (admin side). */
@Injectable()
export class AgentConfigService {
  constructor(
    private readonly repo: AgentConfigRepository,
    private readonly tools: ToolRegistryService,
    private readonly configVersion: ConfigVersionService,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly skillIds: AgentSkillIdsGuard,
    private readonly loopFields: AgentLoopFieldsValidator,
  ) {}

  async create(auth: AuthContext, dto: CreateAgentDto): Promise<AgentDto> {
    if (auth.tenantId !== null && auth.tenantId !== dto.tenantId) {
      throw new DomainError(
        CommonErrorCode.FORBIDDEN,
        `Your admin key is bound to tenant ${auth.tenantId}; create agents in that tenant.`,
      );
    }
    await this.loopFields.check(dto.tenantId, null, dto);
    const now = Date.now();
    const row: AgentEntity = {
      id: randomUUID(),
      tenantId: dto.tenantId,
      name: dto.name,
      nameKey: nameKeyOf(dto.name),
      description: dto.description ?? null,
      webSearchMode: dto.webSearchMode ?? 'DISABLED',
      sideEffectPolicy: dto.sideEffectPolicy ?? 'ALLOW',
      hitlReviewer: dto.hitlReviewer ?? 'RUNTIME',
      maxIterations: dto.maxIterations ?? 20,
      skillIds: onceEach(dto.skillIds) ?? [],
      knowledgeBaseIds: null,
      subAgentIds: onceEach(dto.subAgentIds) ?? null,
      modelProviderId: dto.modelProviderId ?? null,
      systemPrompt: dto.systemPrompt ?? null,
      createdAt: now,
      updatedAt: now,
    };
    await this.write(
      row.tenantId,
      async (m) => {
        await this.skillIds.assert(m, row.tenantId, row.skillIds);
        await this.loopFields.lockSubAgents(m, row.tenantId, row.subAgentIds);
        await this.repo.insertAgent(m, row);
      },
      dto.name,
    );
    return toAgentDto(row, []);
  }

  async get(auth: AuthContext, id: string): Promise<AgentDto> {
    const row = await this.loadAgent(auth, id);
    return toAgentDto(row, await this.repo.boundToolIds(id));
  }

  async list(auth: AuthContext, query: PageQueryDto): Promise<AgentPageDto> {
    const { skip, take } = pageWindow(query);
    const [rows, total] = await this.repo.listAgents(auth.tenantId, skip, take);
    const bindings = await this.repo.boundToolIdsOf(rows.map((r) => r.id));
    return pageOf(
      rows.map((r) => toAgentDto(r, bindings.get(r.id) ?? [])),
      total,
      query,
    );
  }

  async update(auth: AuthContext, id: string, dto: UpdateAgentDto): Promise<AgentDto> {
    const row = await this.loadAgent(auth, id);
    await this.loopFields.check(row.tenantId, id, dto);
    const changes = {
      ...dto,
      ...(dto.name !== undefined && { nameKey: nameKeyOf(dto.name) }),
      ...(dto.skillIds && { skillIds: onceEach(dto.skillIds) }),
      ...(dto.subAgentIds && { subAgentIds: onceEach(dto.subAgentIds) }),
      updatedAt: Date.now(),
    };
    await this.write(
      row.tenantId,
      async (m) => {
        await this.skillIds.assert(m, row.tenantId, changes.skillIds);
        await this.loopFields.lockSubAgents(m, row.tenantId, changes.subAgentIds);
        await this.repo.updateAgent(m, id, changes);
      },
      dto.name ?? row.name,
    );
    return toAgentDto({ ...row, ...changes }, await this.repo.boundToolIds(id));
  }

  async remove(auth: AuthContext, id: string): Promise<AgentDto> {
    const row = await this.loadAgent(auth, id);
    const toolIds = await this.repo.boundToolIds(id);
    await this.write(row.tenantId, (m) => this.repo.deleteAgent(m, id), row.name);
    return toAgentDto(row, toolIds);
  }

  async replaceBindings(auth: AuthContext, id: string, toolIds: string[]): Promise<AgentDto> {
    const agent = await this.loadAgent(auth, id);
    const unique = [...new Set(toolIds)];
    for (const toolId of unique) await this.assertBindable(agent, toolId, 'toolIds');
    await this.write(
      agent.tenantId,
      async (m) => (await this.repo.replaceBindings(m, id, unique)) || agentNotFound(id),
      agent.name,
    );
    return this.get(auth, id);
  }

  async addBinding(auth: AuthContext, id: string, toolId: string): Promise<AgentDto> {
    const agent = await this.loadAgent(auth, id);
    await this.assertBindable(agent, toolId, 'toolId');
    await this.write(
      agent.tenantId,
      async (m) => {
        const outcome = await this.repo.addBinding(m, id, toolId, AGENT_TOOL_BINDINGS_MAX);
        if (outcome === 'no-agent') agentNotFound(id);
        if (outcome === 'full')
          throw new DomainError(
            CommonErrorCode.CONFLICT,
            `Agent ${id} is bound to ${AGENT_TOOL_BINDINGS_MAX} tools, the most an agent may have; unbind one first (DELETE /api/v1/admin/agents/${id}/tools/{toolId}) or send the whole set with PUT /api/v1/admin/agents/${id}/tools.`,
          );
      },
      agent.name,
    );
    return this.get(auth, id);
  }

  async removeBinding(auth: AuthContext, id: string, toolId: string): Promise<AgentDto> {
    const agent = await this.loadAgent(auth, id);
    let removed = false;
    await this.write(agent.tenantId, async (m) => (removed = await this.repo.removeBinding(m, id, toolId)), agent.name);
    if (!removed)
      throw new DomainError(
        CommonErrorCode.NOT_FOUND,
        `Tool ${toolId} is not bound to agent ${id}; the agent's toolIds (GET /api/v1/admin/agents/${id}) are its bound tools.`,
      );
    return this.get(auth, id);
  }

  /** Replaces the agent's skills (PUT /admin/agents/{id}/skills): the tenant's own or official ones. */
  async setSkillIds(auth: AuthContext, id: string, skillIds: string[]): Promise<AgentDto> {
    const agent = await this.loadAgent(auth, id);
    const changes = { skillIds: [...new Set(skillIds)], updatedAt: Date.now() };
    await this.write(
      agent.tenantId,
      async (m) => {
        // In the write's transaction: a skill deleted meanwhile is refused, or unbound by its deletion after it.
        await this.skillIds.assert(m, agent.tenantId, changes.skillIds);
        await this.repo.updateAgent(m, id, changes);
      },
      agent.name,
    );
    return this.get(auth, id);
  }

  /** Replaces the agent's knowledge bases (the knowledge-bases module has checked they are of its tenant). */
  async setKnowledgeBaseIds(auth: AuthContext, id: string, knowledgeBaseIds: string[]): Promise<AgentDto> {
    const agent = await this.loadAgent(auth, id);
    const changes = { knowledgeBaseIds, updatedAt: Date.now() };
    await this.write(agent.tenantId, (m) => this.repo.updateAgent(m, id, changes), agent.name);
    return this.get(auth, id);
  }

  /** Removes a deleted skill from every agent that has it, in the caller's transaction (bumps their tenants). */
  async unbindSkillEverywhere(m: EntityManager, skillId: string): Promise<void> {
    const agents = await this.repo.agentsListing(m, 'skillIds', skillId);
    for (const listed of agents) {
      // Read again, locked: the agent's skills may have been replaced since they were listed.
      const agent = await this.repo.lockAgent(m, listed.id);
      if (!agent) continue;
      const skillIds = agent.skillIds.filter((s) => s !== skillId);
      await this.repo.updateAgent(m, agent.id, { skillIds, updatedAt: Date.now() });
      await this.configVersion.bump(m, agent.tenantId);
    }
  }

  /** Unbinds a knowledge base that is being deleted from every agent of its tenant. */
  async forgetKnowledgeBase(tenantId: string, knowledgeBaseId: string): Promise<void> {
    const bound = (await this.repo.agentsListing(this.dataSource.manager, 'knowledgeBaseIds', knowledgeBaseId)).filter(
      (agent) => agent.tenantId === tenantId,
    );
    if (bound.length === 0) return;
    await this.write(
      tenantId,
      async (m) => {
        for (const listed of bound) {
          // Read again, locked: the agent's knowledge bases may have been replaced since they were listed.
          const agent = await this.repo.lockAgent(m, listed.id);
          if (!agent) continue;
          const knowledgeBaseIds = (agent.knowledgeBaseIds ?? []).filter((k) => k !== knowledgeBaseId);
          await this.repo.updateAgent(m, agent.id, { knowledgeBaseIds, updatedAt: Date.now() });
        }
      },
      tenantId,
    );
  }

  async setCapabilities(
    auth: AuthContext,
    tenantId: string,
    dto: TenantCapabilitiesDto,
  ): Promise<TenantCapabilitiesResponseDto> {
    if (auth.tenantId !== null) {
      throw new DomainError(
        CommonErrorCode.FORBIDDEN,
        'Tenant capabilities are the platform policy: only the platform admin key (ADMIN_API_KEY) may change them.',
      );
    }
    const row = { tenantId, webSearch: dto.webSearch, updatedAt: Date.now() };
    await this.write(tenantId, (m) => this.repo.upsertCapability(m, row), tenantId);
    return { ...row, updatedAt: toIso(row.updatedAt)! };
  }

  async getCapabilities(auth: AuthContext, tenantId: string): Promise<TenantCapabilitiesResponseDto> {
    if (auth.tenantId !== null && auth.tenantId !== tenantId) {
      throw new DomainError(
        CommonErrorCode.NOT_FOUND,
        `No tenant ${tenantId} in your scope; your admin key manages tenant ${auth.tenantId}.`,
      );
    }
    const row = await this.repo.findCapability(tenantId);
    return { tenantId, webSearch: row?.webSearch ?? false, updatedAt: toIso(row?.updatedAt ?? 0)! };
  }

  /** The agent, if the caller may see it (another tenant's agent is 404). */
  async loadAgent(auth: Pick<AuthContext, 'tenantId'>, id: string): Promise<AgentEntity> {
    const row = await this.repo.findAgent(id);
    if (!row || (auth.tenantId !== null && row.tenantId !== auth.tenantId)) agentNotFound(id);
    return row;
  }

  /** `field`: the body's field that named the tool (`toolIds` of PUT, `toolId` of POST), for the 400. */
  private async assertBindable(agent: AgentEntity, toolId: string, field: 'toolIds' | 'toolId'): Promise<void> {
    const tool = await this.tools.findById(toolId);
    if (!tool || (tool.tenantId !== null && tool.tenantId !== agent.tenantId)) {
      throw new DomainError(
        CommonErrorCode.NOT_FOUND,
        `No tool ${toolId} in tenant ${agent.tenantId} or platform-wide; list tools with GET /api/v1/admin/tools.`,
        { toolId },
      );
    }
    if (tool.status === 'RETIRED') {
      throw validationFailed([
        {
          field,
          problems: [`tool ${tool.name} (${toolId}) is retired; revive it with PATCH status ACTIVE first`],
        },
      ]);
    }
  }

  /** Runs an admin write and bumps the tenant's config version in the same transaction. */
  private async write(tenantId: string, work: (m: EntityManager) => Promise<unknown>, name: string): Promise<void> {
    try {
      // Writes lock the agents they read (bindings, sub-agents); two that lock the same two agents in opposite order
      // (A names B while B names A) deadlock on MySQL: the victim was rolled back whole and runs again.
      for (let attempt = 1; ; attempt++) {
        try {
          await this.dataSource.transaction(async (m) => {
            await work(m);
            await this.configVersion.bump(m, tenantId);
          });
          return;
        } catch (err) {
          if (!isDeadlock(err) || attempt >= WRITE_ATTEMPTS) throw err;
        }
      }
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw new DomainError(
          AgentConfigErrorCode.AGENT_NAME_TAKEN,
          `The tenant already has an agent named ${name}; pick another name.`,
          { name },
        );
      }
      throw err;
    }
  }
}

/** Attempts of one admin write that MySQL picks as a deadlock victim each time. */
const WRITE_ATTEMPTS = 3;

function agentNotFound(id: string): never {
  throw new DomainError(
    CommonErrorCode.NOT_FOUND,
    `No agent ${id} in your tenant; list agents with GET /api/v1/admin/agents.`,
  );
}

function toAgentDto(row: AgentEntity, toolIds: string[]): AgentDto {
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    description: row.description,
    webSearchMode: row.webSearchMode,
    sideEffectPolicy: row.sideEffectPolicy,
    hitlReviewer: row.hitlReviewer,
    maxIterations: row.maxIterations,
    toolIds,
    skillIds: row.skillIds,
    modelProviderId: row.modelProviderId,
    systemPrompt: row.systemPrompt,
    subAgentIds: row.subAgentIds ?? [],
    knowledgeBaseIds: row.knowledgeBaseIds ?? [],
    createdAt: toIso(row.createdAt)!,
    updatedAt: toIso(row.updatedAt)!,
  };
}

/** An id list kept as a set (each id once, first order), as the PUT endpoints of bindings, skills and bases keep theirs. */
function onceEach<T extends string[] | null | undefined>(ids: T): T {
  return (ids ? [...new Set(ids)] : ids) as T;
}
