import { nameKeyOf } from '@app/common/name-key';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { randomUUID } from 'node:crypto';
import { AiToolEntity } from './ai-tool.entity';
import { ToolRegistryRepository } from './tool-registry.repository';
import { ToolSchemaCompiler } from './tool-schema.compiler';
import { checkToolDefinition } from './tool-definition.rules';
import { scopeKeyOf, toDescriptor, toToolDto } from './tool-descriptor.mapper';
import { toolDtoForViewer } from './tool-headers.view';
import { CreateToolDto, ListToolsQueryDto, ToolDto, ToolWithChecklistDto, UpdateToolDto } from './tool-registry.dto';
import { ToolChecklistService } from './checklist/tool-checklist.service';
import type { ToolChecklist } from './checklist/tool-checklist.types';
import type { ToolDescriptor } from './tool-registry.types';
import { ToolRegistryErrorCode } from './tool-registry.errors';
import { ConfigVersionService } from '@app/database/config-version.service';
import { isUniqueViolation } from '@app/database/unique-violation';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { FieldProblem, validationFailed } from '@app/common/errors/validation';
import type { AuthContext } from '@app/common/auth/auth-context';
import { targetTenantOf } from '@app/common/auth/target-tenant';
import { Page, pageOf, pageWindow } from '@app/common/dto/page.dto';
import { GATEWAY_CONFIG, type GatewayConfig } from '@app/config/gateway-config';
import { noNacosNamespaceMessage, tenantNacosNamespaces } from '@app/config/nacos-namespaces';

/** Fields an admin may change on tools that a scanner or a sync owns (the rest comes from the source). */
const POLICY_FIELDS = new Set([
  'enabled',
  'timeoutMs',
  'permissionTags',
  'sideEffect',
  'requires',
  'hitl',
  'result',
  'status',
]);

/** The tool registry: admin CRUD, and reads for every other module. */
@Injectable()
export class ToolRegistryService {
  constructor(
    private readonly repo: ToolRegistryRepository,
    private readonly schemas: ToolSchemaCompiler,
    private readonly configVersion: ConfigVersionService,
    private readonly checklists: ToolChecklistService,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  // ---- reads for other modules -------------------------------------------------------------

  async findById(id: string): Promise<ToolDescriptor | null> {
    const row = await this.repo.findById(id);
    return row ? toDescriptor(row) : null;
  }

  async findByNameInScope(name: string, tenantId: string | null): Promise<ToolDescriptor | null> {
    const row = await this.repo.findByNameInScope(name, tenantId);
    return row ? toDescriptor(row) : null;
  }

  async findAllInScope(tenantId: string): Promise<ToolDescriptor[]> {
    return this.repo.findAllInScope(tenantId);
  }

  // ---- admin ------------------------------------------------------------------------------

  async create(auth: AuthContext, dto: CreateToolDto): Promise<ToolWithChecklistDto> {
    const tenantId = targetTenantOf(auth, dto.tenantId, 'tools');
    this.assertValidDefinition({ ...dto, tenantId });
    this.assertNacosReachable(auth, dto.serviceType);
    await this.assertNameFree(dto.name, tenantId);
    const now = Date.now();
    const row: AiToolEntity = {
      id: randomUUID(),
      tenantId,
      scopeKey: scopeKeyOf(tenantId),
      name: dto.name,
      nameKey: nameKeyOf(dto.name),
      description: dto.description,
      parameters: dto.parameters,
      serviceType: dto.serviceType,
      endpoint: dto.endpoint,
      httpMethod: dto.serviceType === 'HTTP' ? (dto.httpMethod ?? 'POST') : null,
      headers: dto.headers ?? null,
      timeoutMs: dto.timeoutMs ?? null,
      permissionTags: dto.permissionTags,
      tags: dto.tags ?? [],
      sideEffect: dto.sideEffect,
      remoteName: dto.remoteName ?? null,
      requires: dto.requires ?? [],
      enabled: dto.enabled ?? true,
      status: 'ACTIVE',
      source: 'DB',
      version: 1,
      hitl: dto.hitl ? { ...dto.hitl } : null,
      result: dto.result ? { ...dto.result } : null,
      mcpServiceId: null,
      definitionChecksum: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.writeInTransaction(row.tenantId, (m) => this.repo.insert(m, row), dto.name);
    const created = toDescriptor(row);
    return { ...toToolDto(created), checklist: this.checklists.run(created) };
  }

  /** The checklist of a stored tool of any source the admin can see. */
  async checklist(auth: AuthContext, id: string): Promise<ToolChecklist> {
    return this.checklists.run(toDescriptor(await this.loadVisibleToAdmin(auth, id)));
  }

  /** The checklist of a definition as for create; nothing is checked against the registry, nothing stored. */
  checklistOfDefinition(auth: AuthContext, dto: CreateToolDto): ToolChecklist {
    return this.checklists.run({
      ...dto,
      tenantId: dto.tenantId !== undefined ? dto.tenantId : auth.tenantId,
      httpMethod: dto.serviceType === 'HTTP' ? (dto.httpMethod ?? 'POST') : null,
      headers: dto.headers ?? null,
      timeoutMs: dto.timeoutMs ?? null,
      hitl: dto.hitl ?? null,
      result: dto.result ?? null,
    });
  }

  async get(auth: AuthContext, id: string): Promise<ToolDto> {
    return toolDtoForViewer(toToolDto(toDescriptor(await this.loadVisibleToAdmin(auth, id))), auth.tenantId);
  }

  async list(auth: AuthContext, query: ListToolsQueryDto): Promise<Page<ToolDto>> {
    const tenantId = auth.tenantId ?? query.tenantId;
    const [rows, total] = await this.repo.list({ ...query, tenantId, ...pageWindow(query) });
    return pageOf(
      rows.map((r) => toolDtoForViewer(toToolDto(toDescriptor(r)), auth.tenantId)),
      total,
      query,
    );
  }

  async update(auth: AuthContext, id: string, dto: UpdateToolDto): Promise<ToolWithChecklistDto> {
    return this.applyUpdate(auth, await this.loadEditable(auth, id), dto);
  }

  /** `dto` applied to `row` as read, if it is still at the version read (else 409 CONCURRENT_MODIFICATION). */
  private async applyUpdate(auth: AuthContext, row: AiToolEntity, patch: UpdateToolDto): Promise<ToolWithChecklistDto> {
    // `tags: null` is no tags, as on create (the column holds a list, never null).
    const dto: UpdateToolDto = (patch.tags as unknown) === null ? { ...patch, tags: [] } : patch;
    const id = row.id;
    if (dto.status === 'ACTIVE' && row.status === 'DISABLED') {
      throw new DomainError(
        ToolRegistryErrorCode.TOOL_NOT_EDITABLE,
        `Tool ${row.name} is DISABLED by its source ${row.source} (gone from its MCP server, its MCP service deleted, or its @FeignTool removed): it has no valid version to revive. It comes back ACTIVE when its source lists it again (sync the service); PATCH status ACTIVE revives only a RETIRED tool.`,
        { status: row.status, source: row.source },
      );
    }
    if (row.source !== 'DB') {
      const locked = Object.keys(dto).filter((k) => !POLICY_FIELDS.has(k));
      if (locked.length) {
        throw new DomainError(
          ToolRegistryErrorCode.TOOL_NOT_EDITABLE,
          `Tool ${row.name} comes from source ${row.source}; its ${locked.join(', ')} come from that source. Change them there; here you may change ${[...POLICY_FIELDS].join(', ')}.`,
          { lockedFields: locked },
        );
      }
    }
    const merged = { ...toDescriptor(row), ...stripUndefined(dto) };
    if (dto.parameters || dto.serviceType || dto.endpoint || dto.headers) this.assertValidDefinition(merged);
    if (dto.serviceType || dto.endpoint) this.assertNacosReachable(auth, merged.serviceType);
    if (dto.name && dto.name !== row.name) await this.assertNameFree(dto.name, row.tenantId, row.id);
    const changes: Partial<AiToolEntity> = { ...stripUndefined(dto), version: row.version + 1, updatedAt: Date.now() };
    if (dto.name) changes.nameKey = nameKeyOf(dto.name);
    if (dto.serviceType && dto.serviceType !== 'HTTP') changes.httpMethod = null;
    await this.writeInTransaction(
      row.tenantId,
      async (m) => {
        // Compare-and-set on the version read: a PATCH computed from a row another writer changed since is refused,
        // never stored under the version that other change already took.
        if (!(await this.repo.updateIfVersion(m, id, row.version, changes)))
          throw new DomainError(
            CommonErrorCode.CONCURRENT_MODIFICATION,
            `Tool ${row.name} was changed by another request while this one was applied (it had version ${row.version}); nothing was changed. GET it and send your change again.`,
            { toolId: id, version: row.version },
          );
      },
      dto.name ?? row.name,
    );
    const updated: ToolDescriptor = { ...merged, version: row.version + 1, updatedAt: changes.updatedAt! };
    return { ...toToolDto(updated), checklist: this.checklists.run(updated) };
  }

  /** DELETE: retires the tool (a new version); a tool already retired is answered as it is, its version unchanged. */
  async retire(auth: AuthContext, id: string): Promise<ToolDto> {
    const row = await this.loadEditable(auth, id);
    if (row.status === 'RETIRED') return toolDtoForViewer(toToolDto(toDescriptor(row)), auth.tenantId);
    try {
      const { checklist: _checklist, ...tool } = await this.applyUpdate(auth, row, { status: 'RETIRED' });
      return tool;
    } catch (err) {
      // Another write landed first (often the same DELETE twice): read again; retired by then, it answers as it is.
      if (err instanceof DomainError && err.code === CommonErrorCode.CONCURRENT_MODIFICATION)
        return this.retire(auth, id);
      throw err;
    }
  }

  // ---- rules ------------------------------------------------------------------------------

  private assertValidDefinition(
    def: Pick<ToolDescriptor, 'parameters' | 'serviceType' | 'endpoint' | 'tenantId'> & {
      headers?: Record<string, string> | null;
    },
  ): void {
    const problems: FieldProblem[] = [];
    const schemaProblems = this.schemas.checkDefinition(def.parameters);
    if (schemaProblems.length)
      problems.push({ field: 'parameters', problems: schemaProblems.map((p) => `JSON Schema ${p}`) });
    problems.push(...checkToolDefinition(def));
    if (problems.length) throw validationFailed(problems);
  }

  /**
   * A tenant admin's MCP_NACOS tool is looked up in the tenant's Nacos namespace (NACOS_TENANT_NAMESPACES), with the
   * platform's credentials: a tenant with none may not register one (the executor would look it up nowhere).
   */
  private assertNacosReachable(auth: AuthContext, serviceType: string): void {
    if (serviceType !== 'MCP_NACOS' || auth.tenantId === null) return;
    if (tenantNacosNamespaces(this.config, auth.tenantId).length === 0)
      throw new DomainError(CommonErrorCode.FORBIDDEN, noNacosNamespaceMessage(auth.tenantId));
  }

  /**
   * Case-insensitively: `Search` and `search` are one name, in the scopes `nameScopesOf` (ai-tool.entity.ts) names. `self` (a PATCH
   * renaming a tool) may change only the case of its own name.
   */
  private async assertNameFree(name: string, tenantId: string | null, self?: string): Promise<void> {
    const clashes = (await this.repo.findNameClashes(name, tenantId)).filter((c) => c.id !== self);
    if (clashes.length === 0) return;
    const clash = clashes[0];
    const where = clash.tenantId === null ? 'platform-wide' : `in tenant ${clash.tenantId}`;
    const hint =
      clash.status === 'RETIRED'
        ? ' It is retired: PATCH it with status ACTIVE to revive it, or pick another name.'
        : ' Pick another name.';
    throw new DomainError(
      ToolRegistryErrorCode.TOOL_NAME_TAKEN,
      `A tool named ${name} already exists ${where} (id ${clash.id}).${hint}`,
      {
        name,
        existingToolId: clash.id,
      },
    );
  }

  private async loadVisibleToAdmin(auth: AuthContext, id: string): Promise<AiToolEntity> {
    const row = await this.repo.findById(id);
    if (!row || (auth.tenantId !== null && row.tenantId !== null && row.tenantId !== auth.tenantId)) {
      throw new DomainError(
        CommonErrorCode.NOT_FOUND,
        `No tool ${id} in your scope; list tools with GET /api/v1/admin/tools.`,
      );
    }
    return row;
  }

  private async loadEditable(auth: AuthContext, id: string): Promise<AiToolEntity> {
    const row = await this.loadVisibleToAdmin(auth, id);
    if (auth.tenantId !== null && row.tenantId === null) {
      throw new DomainError(
        CommonErrorCode.FORBIDDEN,
        `Tool ${row.name} is platform-wide; only the platform admin key may change it.`,
      );
    }
    if (row.source === 'BUILTIN' && auth.tenantId !== null) {
      throw new DomainError(ToolRegistryErrorCode.TOOL_NOT_EDITABLE, `Tool ${row.name} is built in.`);
    }
    return row;
  }

  /** Runs a registry write and bumps the config version of the tool's scope (its tenant, or all for platform-wide). */
  private async writeInTransaction(
    tenantId: string | null,
    write: (m: import('typeorm').EntityManager) => Promise<unknown>,
    name: string,
  ): Promise<void> {
    try {
      await this.dataSource.transaction(async (m) => {
        await write(m);
        await this.configVersion.bump(m, tenantId);
      });
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw new DomainError(
          ToolRegistryErrorCode.TOOL_NAME_TAKEN,
          `A tool named ${name} already exists in this scope. Pick another name.`,
          { name },
        );
      }
      throw err;
    }
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
