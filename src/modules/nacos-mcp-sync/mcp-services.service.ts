import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { AuthContext } from '@app/common/auth/auth-context';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { DomainError } from '@app/common/errors/domain-error';
import { FieldProblem, validationFailed } from '@app/common/errors/validation';
import { Page, pageOf, pageWindow } from '@app/common/dto/page.dto';
import { isUniqueViolation } from '@app/database/unique-violation';
import { NACOS_NAMING, type NacosNamingPort } from './nacos/nacos-naming.adapter';
import { isNacosEnabled, NacosDisabledError } from './nacos-naming.provider';
import { McpServiceEntity } from './mcp-service.entity';
import { McpServiceRepository } from './mcp-service.repository';
import { McpServiceSyncService } from './mcp-service-sync.service';
import { McpServiceWatcher } from './mcp-service.watcher';
import { toMcpServiceDto, toMcpServiceRecord } from './mcp-service.mapper';
import { defaultToolPrefix } from './mcp-tool-name';
import { NacosMcpSyncErrorCode } from './nacos-mcp-sync.errors';
import { DEFAULT_NACOS_GROUP, type McpSyncReport } from './mcp-service.types';
import type { CreateMcpServiceDto, ListMcpServicesQueryDto, McpServiceDto } from './mcp-services.dto';

/**
 * The admin side of MCP services: register (then sync at once and watch), list, read, sync on demand. A
 * tenant admin sees and acts on its own tenant's services only; the platform admin on all.
 */
@Injectable()
export class McpServicesService {
  constructor(
    private readonly services: McpServiceRepository,
    private readonly sync: McpServiceSyncService,
    private readonly watcher: McpServiceWatcher,
    @Inject(NACOS_NAMING) private readonly naming: NacosNamingPort,
  ) {}

  async create(auth: AuthContext, dto: CreateMcpServiceDto): Promise<McpServiceDto> {
    const tenantId = targetTenant(auth, dto.tenantId);
    assertValidDefinition(dto);
    if (dto.kind === 'NACOS' && !isNacosEnabled(this.naming)) throw new DomainError(NacosMcpSyncErrorCode.NACOS_NOT_CONFIGURED, new NacosDisabledError().message);
    const scopeKey = tenantId ?? '*';
    await this.assertNameFree(scopeKey, dto.name);
    const now = Date.now();
    const row: McpServiceEntity = {
      id: randomUUID(),
      name: dto.name,
      kind: dto.kind,
      url: dto.kind === 'STATIC' ? new URL(dto.url!).toString() : null,
      serviceName: dto.kind === 'NACOS' ? dto.serviceName! : null,
      groupName: dto.kind === 'NACOS' ? (dto.groupName ?? DEFAULT_NACOS_GROUP) : null,
      namespaceId: dto.kind === 'NACOS' ? (dto.namespaceId ?? null) : null,
      transport: dto.transport ?? null,
      path: dto.kind === 'NACOS' ? (dto.path ?? null) : null,
      tenantId,
      scopeKey,
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
    // The first sync runs before the answer, so the tools are in the registry when the admin reads it.
    await this.sync.sync(row.id, 'create');
    const created = toMcpServiceRecord((await this.services.findById(row.id))!);
    this.watcher.watch(created);
    return toMcpServiceDto(created);
  }

  async list(auth: AuthContext, query: ListMcpServicesQueryDto): Promise<Page<McpServiceDto>> {
    const { skip, take } = pageWindow(query);
    const [rows, total] = await this.services.list(auth.tenantId ?? query.tenantId, skip, take);
    return pageOf(rows.map((r) => toMcpServiceDto(toMcpServiceRecord(r))), total, query);
  }

  async get(auth: AuthContext, id: string): Promise<McpServiceDto> {
    return toMcpServiceDto(toMcpServiceRecord(await this.loadVisible(auth, id)));
  }

  /** Syncs now; a sync in which no instance answered is a 502 with the reason (nothing changed in the registry). */
  async syncNow(auth: AuthContext, id: string): Promise<McpSyncReport> {
    const row = await this.loadVisible(auth, id);
    const report = await this.sync.sync(row.id, 'admin');
    if (report.error) {
      throw new DomainError(NacosMcpSyncErrorCode.MCP_SERVICE_UNREACHABLE, `MCP service ${row.name} could not be synced: ${report.error}. Its tools are unchanged (and hidden while it is down); fix the service or its registration and sync again.`, {
        serviceId: row.id,
        reason: report.error,
      });
    }
    return report;
  }

  private async loadVisible(auth: AuthContext, id: string): Promise<McpServiceEntity> {
    const row = await this.services.findById(id);
    if (!row || (auth.tenantId !== null && row.tenantId !== auth.tenantId)) {
      throw new DomainError(CommonErrorCode.NOT_FOUND, `No MCP service ${id} in your scope; list them with GET /api/v1/admin/mcp-services.`);
    }
    return row;
  }

  private async assertNameFree(scopeKey: string, name: string): Promise<void> {
    if (await this.services.findByScopeAndName(scopeKey, name)) throw nameTaken(name, scopeKey);
  }
}

function nameTaken(name: string, scopeKey: string): DomainError {
  const where = scopeKey === '*' ? 'platform-wide' : `in tenant ${scopeKey}`;
  return new DomainError(NacosMcpSyncErrorCode.MCP_SERVICE_NAME_TAKEN, `An MCP service named ${name} already exists ${where}. Pick another name.`, { name });
}

function targetTenant(auth: AuthContext, requested: string | null | undefined): string | null {
  if (auth.tenantId === null) return requested ?? null;
  if (requested === undefined || requested === auth.tenantId) return auth.tenantId;
  throw new DomainError(
    CommonErrorCode.FORBIDDEN,
    requested === null
      ? 'Platform-wide MCP services are registered with the platform admin key (ADMIN_API_KEY); omit tenantId to register it in your tenant.'
      : `Your admin key is bound to tenant ${auth.tenantId}; omit tenantId or use your own.`,
  );
}

/** Cross-field rules a DTO cannot express: what each kind needs and what it must not carry. */
function assertValidDefinition(dto: CreateMcpServiceDto): void {
  const problems: FieldProblem[] = [];
  const notFor = (field: keyof CreateMcpServiceDto) => {
    if (dto[field] !== undefined) problems.push({ field, problems: [`is not used by kind ${dto.kind}; remove it`] });
  };
  if (dto.kind === 'STATIC') {
    if (dto.url === undefined) problems.push({ field: 'url', problems: ['is required for kind STATIC'] });
    else if (!isHttpUrl(dto.url)) problems.push({ field: 'url', problems: ['must be an absolute http(s) URL, e.g. https://mcp.example.com/mcp'] });
    (['serviceName', 'groupName', 'namespaceId', 'path'] as const).forEach(notFor);
  } else {
    if (dto.serviceName === undefined) problems.push({ field: 'serviceName', problems: ['is required for kind NACOS (the service name as registered in Nacos)'] });
    notFor('url');
  }
  if (problems.length) throw validationFailed(problems);
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}
