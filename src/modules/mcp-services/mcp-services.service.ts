import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { randomUUID } from 'node:crypto';
import type { AuthContext } from '@app/common/auth/auth-context';
import { targetTenantOf } from '@app/common/auth/target-tenant';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { DomainError } from '@app/common/errors/domain-error';
import { FieldProblem, validationFailed } from '@app/common/errors/validation';
import { Page, pageOf, pageWindow } from '@app/common/dto/page.dto';
import { isUniqueViolation } from '@app/database/unique-violation';
import { ConfigVersionService } from '@app/database/config-version.service';
import { noNacosNamespaceMessage, tenantNacosNamespaces } from '@app/config/nacos-namespaces';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { ToolRegistryRepository } from '@app/modules/tool-registry/tool-registry.repository';
import { scopeKeyOf, toDescriptor, toToolDto } from '@app/modules/tool-registry/tool-descriptor.mapper';
import type { ToolDto } from '@app/modules/tool-registry/tool-registry.dto';
import { checkHeaderTemplates } from '@app/modules/tool-registry/tool-definition.rules';
import { urlCredentialProblem } from '@app/modules/tool-registry/tool-credential.rules';
import { McpToolRowsRepository } from './mcp-tool-rows.repository';
import { NACOS_NAMING, type NacosNamingPort } from './nacos/nacos-naming.adapter';
import { isNacosEnabled, NacosDisabledError } from './nacos/nacos-naming.provider';
import { McpServiceEntity } from './mcp-service.entity';
import { McpServiceMemory } from './mcp-service.memory';
import { McpServiceRepository } from './mcp-service.repository';
import { McpServiceSyncService } from './mcp-service-sync.service';
import { McpServiceWatcher } from './mcp-service.watcher';
import { toMcpServiceDto, toMcpServiceRecord } from './mcp-service.mapper';
import { defaultToolPrefix } from './mcp-tool-name';
import { McpServicesErrorCode } from './mcp-services.errors';
import { DEFAULT_NACOS_GROUP, type McpSyncReport } from './mcp-service.types';
import type {
  CreateMcpServiceDto,
  ListMcpServicesQueryDto,
  McpServiceDto,
  UpdateMcpServiceDto,
} from './mcp-services.dto';
import type { PageQueryDto } from '@app/common/dto/page.dto';

/**
 * The admin side of MCP services: register (then sync at once and watch), list, read, change, delete, list its
 * tools, sync on demand. A tenant admin sees and acts on its own tenant's services only; the platform admin on
 * all. Header templates are checked like a tool's (no literal credential) and copied to the service's tools, so
 * calls read them from the registry snapshot that every write's config-version bump keeps fresh.
 */
@Injectable()
export class McpServicesService {
  private readonly logger = new Logger(McpServicesService.name);

  constructor(
    private readonly services: McpServiceRepository,
    private readonly sync: McpServiceSyncService,
    private readonly watcher: McpServiceWatcher,
    @Inject(NACOS_NAMING) private readonly naming: NacosNamingPort,
    private readonly toolRows: McpToolRowsRepository,
    private readonly registry: ToolRegistryRepository,
    private readonly memory: McpServiceMemory,
    private readonly configVersion: ConfigVersionService,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async create(auth: AuthContext, dto: CreateMcpServiceDto): Promise<McpServiceDto> {
    const tenantId = targetTenantOf(auth, dto.tenantId, 'MCP services');
    assertValidDefinition(dto, tenantId);
    if (dto.kind === 'NACOS' && !isNacosEnabled(this.naming))
      throw new DomainError(McpServicesErrorCode.NACOS_NOT_CONFIGURED, new NacosDisabledError().message);
    const namespaceId = dto.kind === 'NACOS' ? this.namespaceFor(auth, dto.namespaceId) : null;
    const scopeKey = scopeKeyOf(tenantId);
    await this.assertNameFree(scopeKey, dto.name);
    const now = Date.now();
    const row: McpServiceEntity = {
      id: randomUUID(),
      name: dto.name,
      kind: dto.kind,
      url: dto.kind === 'STATIC' ? new URL(dto.url!).toString() : null,
      serviceName: dto.kind === 'NACOS' ? dto.serviceName! : null,
      groupName: dto.kind === 'NACOS' ? (dto.groupName ?? DEFAULT_NACOS_GROUP) : null,
      namespaceId,
      namespaceChosenBy: dto.kind === 'NACOS' ? (auth.tenantId === null ? 'PLATFORM' : 'TENANT') : null,
      transport: dto.transport ?? null,
      path: dto.kind === 'NACOS' ? (dto.path ?? null) : null,
      tenantId,
      scopeKey,
      headers: dto.headers && Object.keys(dto.headers).length ? dto.headers : null,
      toolPrefix: dto.toolPrefix ?? defaultToolPrefix(dto.name),
      health: 'UNKNOWN',
      healthReason: null,
      lastSyncAt: null,
      lastListHash: null,
      lastSyncResult: null,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.services.insert(row);
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken(dto.name, scopeKey);
      throw err;
    }
    return this.syncAndWatch(row.id, row.name, 'create');
  }

  /**
   * Syncs a service just created or changed before the answer, so its tools are in the registry when the admin reads
   * it, then watches it. A sync that fails outright (not an unreachable server: that is a report) leaves the stored
   * service watched and answered as it is (a new one UNKNOWN), not behind a 500 for a change already made: the repair
   * round, or POST .../sync, syncs it.
   */
  private async syncAndWatch(id: string, name: string, trigger: 'create' | 'admin'): Promise<McpServiceDto> {
    await this.sync
      .sync(id, trigger)
      .catch((err: unknown) =>
        this.logger.warn(
          `Sync of MCP service ${name} after its ${trigger === 'create' ? 'creation' : 'change'} failed: ${(err as Error).message}; a later sync brings its tools.`,
        ),
      );
    const service = toMcpServiceRecord((await this.services.findById(id))!);
    this.watcher.watch(service);
    return toMcpServiceDto(service);
  }

  /**
   * The namespace a new NACOS service names. Lookups use the platform's Nacos credentials, so a tenant admin may
   * name only its tenant's namespaces (NACOS_TENANT_NAMESPACES; omitted: the first), never another tenant's or the
   * platform's, and it must stay among them at every lookup (see refusedNamespaceReason); the platform admin key
   * names any (omitted: NACOS_NAMESPACE at lookup), a choice that stays.
   */
  private namespaceFor(auth: AuthContext, requested: string | undefined): string | null {
    if (auth.tenantId === null) return requested ?? null;
    const allowed = tenantNacosNamespaces(this.config, auth.tenantId);
    if (allowed.length > 0 && (requested === undefined || allowed.includes(requested))) return requested ?? allowed[0];
    throw new DomainError(
      CommonErrorCode.FORBIDDEN,
      allowed.length === 0
        ? noNacosNamespaceMessage(auth.tenantId)
        : `Tenant ${auth.tenantId} may name the Nacos namespaces ${allowed.join(', ')} (NACOS_TENANT_NAMESPACES), not ${requested}; omit namespaceId for ${allowed[0]}.`,
      { allowedNamespaces: allowed },
    );
  }

  async list(auth: AuthContext, query: ListMcpServicesQueryDto): Promise<Page<McpServiceDto>> {
    const { skip, take } = pageWindow(query);
    const [rows, total] = await this.services.list(auth.tenantId ?? query.tenantId, skip, take);
    return pageOf(
      rows.map((r) => toMcpServiceDto(toMcpServiceRecord(r))),
      total,
      query,
    );
  }

  async get(auth: AuthContext, id: string): Promise<McpServiceDto> {
    return toMcpServiceDto(toMcpServiceRecord(await this.loadVisible(auth, id)));
  }

  /**
   * Changes the headers or (STATIC) the URL or transport: the service and its tools in one transaction with the
   * config-version bump, then its sessions are closed and it is synced again (the answer carries that sync).
   */
  async update(auth: AuthContext, id: string, dto: UpdateMcpServiceDto): Promise<McpServiceDto> {
    const row = await this.loadVisible(auth, id);
    assertValidChange(row, dto);
    const now = Date.now();
    const changes: Partial<McpServiceEntity> = { updatedAt: now };
    if (dto.url !== undefined) changes.url = new URL(dto.url).toString();
    if (dto.transport !== undefined) changes.transport = dto.transport;
    if (dto.headers !== undefined)
      changes.headers = dto.headers && Object.keys(dto.headers).length ? dto.headers : null;
    const toolChanges = {
      ...(changes.headers !== undefined ? { headers: changes.headers } : {}),
      ...(changes.url ? { endpoint: changes.url } : {}),
    };
    await this.write(row.tenantId, async (m) => {
      await this.services.update(id, changes, m);
      if (Object.keys(toolChanges).length) await this.toolRows.followService(m, id, toolChanges, now);
    });
    await this.memory.forgetChanged(row);
    return this.syncAndWatch(id, row.name, 'admin');
  }

  /**
   * Deletes the service; its tools become DISABLED (bindings kept) in the same transaction. The row goes first: a
   * sync's write locks it too (MySQL), so it either lands before (and its tools are disabled here) or finds it gone.
   */
  async remove(auth: AuthContext, id: string): Promise<McpServiceDto> {
    const row = await this.loadVisible(auth, id);
    await this.write(row.tenantId, async (m) => {
      await this.services.delete(m, id);
      await this.toolRows.disableForService(m, id, Date.now());
    });
    await this.memory.forgetDeleted(row);
    return toMcpServiceDto(toMcpServiceRecord(row));
  }

  /** The service's tools in the registry (any status), by name. */
  async tools(auth: AuthContext, id: string, query: PageQueryDto): Promise<Page<ToolDto>> {
    const row = await this.loadVisible(auth, id);
    const all = (await this.registry.findByMcpService(row.id)).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    const { skip, take } = pageWindow(query);
    return pageOf(
      all.slice(skip, skip + take).map((t) => toToolDto(toDescriptor(t))),
      all.length,
      query,
    );
  }

  private async write(tenantId: string | null, fn: (m: EntityManager) => Promise<void>): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      await fn(m);
      await this.configVersion.bump(m, tenantId);
    });
  }

  /** Syncs now; a sync in which no instance answered is a 502 with the reason (nothing changed in the registry). */
  async syncNow(auth: AuthContext, id: string): Promise<McpSyncReport> {
    const row = await this.loadVisible(auth, id);
    const report = await this.sync.sync(row.id, 'admin');
    if (report.error) {
      throw new DomainError(
        McpServicesErrorCode.MCP_SERVICE_UNREACHABLE,
        `MCP service ${row.name} could not be synced: ${report.error}. Its tools are unchanged (and hidden while it is down); fix the service or its registration and sync again.`,
        {
          serviceId: row.id,
          reason: report.error,
        },
      );
    }
    return report;
  }

  private async loadVisible(auth: AuthContext, id: string): Promise<McpServiceEntity> {
    const row = await this.services.findById(id);
    if (!row || (auth.tenantId !== null && row.tenantId !== auth.tenantId)) {
      throw new DomainError(
        CommonErrorCode.NOT_FOUND,
        `No MCP service ${id} in your scope; list them with GET /api/v1/admin/mcp-services.`,
      );
    }
    return row;
  }

  private async assertNameFree(scopeKey: string, name: string): Promise<void> {
    if (await this.services.findByScopeAndName(scopeKey, name)) throw nameTaken(name, scopeKey);
  }
}

function nameTaken(name: string, scopeKey: string): DomainError {
  const where = scopeKey === '*' ? 'platform-wide' : `in tenant ${scopeKey}`;
  return new DomainError(
    McpServicesErrorCode.MCP_SERVICE_NAME_TAKEN,
    `An MCP service named ${name} already exists ${where}. Pick another name.`,
    { name },
  );
}

/**
 * Cross-field rules a DTO cannot express: what each kind needs and what it must not carry; header references that
 * the secrets of the service's tenant (`tenantId`, null: platform-wide) can fill.
 */
function assertValidDefinition(dto: CreateMcpServiceDto, tenantId: string | null): void {
  const problems: FieldProblem[] = [];
  const notFor = (field: keyof CreateMcpServiceDto) => {
    if (dto[field] !== undefined) problems.push({ field, problems: [`is not used by kind ${dto.kind}; remove it`] });
  };
  if (dto.kind === 'STATIC') {
    if (dto.url === undefined) problems.push({ field: 'url', problems: ['is required for kind STATIC'] });
    else problems.push(...urlProblems(dto.url));
    (['serviceName', 'groupName', 'namespaceId', 'path'] as const).forEach(notFor);
  } else {
    if (dto.serviceName === undefined)
      problems.push({
        field: 'serviceName',
        problems: ['is required for kind NACOS (the service name as registered in Nacos)'],
      });
    notFor('url');
  }
  if (dto.headers) problems.push(...checkHeaderTemplates(dto.headers, 'headers', tenantId));
  if (problems.length) throw validationFailed(problems);
}

/** Rules of a PATCH: URL and transport belong to STATIC services; headers as on create. */
function assertValidChange(row: McpServiceEntity, dto: UpdateMcpServiceDto): void {
  const problems: FieldProblem[] = [];
  for (const field of ['url', 'transport'] as const) {
    if (dto[field] !== undefined && row.kind !== 'STATIC')
      problems.push({
        field,
        problems: [
          `can be changed only on STATIC services; ${row.name} is ${row.kind}, whose address Nacos gives: leave ${field} out`,
        ],
      });
  }
  if (dto.url !== undefined && row.kind === 'STATIC') problems.push(...urlProblems(dto.url));
  if (dto.headers) problems.push(...checkHeaderTemplates(dto.headers, 'headers', row.tenantId));
  if (problems.length) throw validationFailed(problems);
}

function urlProblems(url: string): FieldProblem[] {
  if (!isHttpUrl(url))
    return [{ field: 'url', problems: ['must be an absolute http(s) URL, e.g. https://mcp.example.com/mcp'] }];
  const credential = urlCredentialProblem(url, 'url');
  return credential ? [credential] : [];
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}
