import { urlCredentialProblem } from '@app/modules/tool-registry/tool-credential.rules';
import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { AuthContext } from '@app/common/auth/auth-context';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { validationFailed } from '@app/common/errors/validation';
import { PageQueryDto, pageOf, pageWindow } from '@app/common/dto/page.dto';
import { toIso } from '@app/database/epoch-ms.transformer';
import { isUniqueViolation } from '@app/database/unique-violation';
import { nameKeyOf } from '@app/common/name-key';
import { PLATFORM_SCOPE } from '@app/modules/tool-registry/ai-tool.entity';
import { scopeKeyOf } from '@app/modules/tool-registry/tool-descriptor.mapper';
import { ModelProvidersRepository } from './model-providers.repository';
import { ModelProviderEntity } from './model-provider.entity';
import { ModelProvidersErrorCode } from './model-providers.errors';
import { ModelChatClient } from './model-chat.client';
import { maskSecretRefs, tenantSecretRefProblems } from '@app/modules/tenant-secrets/tool-secret.refs';
import {
  CreateModelProviderDto,
  ModelProviderDto,
  ModelProviderPageDto,
  UpdateModelProviderDto,
} from './model-providers.dto';

/**
 * Model providers (admin side). A tenant admin manages its tenant's own and reads the platform-wide ones; only the
 * platform key writes platform-wide ones. The key is a `${secret:NAME}` reference resolved at call time.
 */
@Injectable()
export class ModelProvidersService {
  constructor(
    private readonly repo: ModelProvidersRepository,
    private readonly chat: ModelChatClient,
  ) {}

  async create(auth: AuthContext, dto: CreateModelProviderDto): Promise<ModelProviderDto> {
    const tenantId = dto.tenantId ?? null;
    this.assertWritable(auth, tenantId);
    assertNoUrlCredential(dto.baseUrl);
    assertKeyFillable(tenantId, dto.apiKey);
    const scopeKey = scopeKeyOf(tenantId);
    await this.assertNameFree(scopeKey, dto.name);
    const now = Date.now();
    const row: ModelProviderEntity = {
      id: randomUUID(),
      tenantId,
      scopeKey,
      name: dto.name,
      nameKey: nameKeyOf(dto.name),
      kind: dto.kind,
      baseUrl: dto.baseUrl,
      apiKeyRef: dto.apiKey ?? null,
      model: dto.model,
      options: dto.options ? { ...dto.options } : null,
      version: 1,
      createdAt: now,
      updatedAt: now,
    };
    await this.namingGuarded(scopeKey, dto.name, () => this.repo.insert(row));
    return toModelProviderDto(row, auth.tenantId);
  }

  async list(auth: AuthContext, query: PageQueryDto): Promise<ModelProviderPageDto> {
    const { skip, take } = pageWindow(query);
    const [rows, total] = await this.repo.list(auth.tenantId, skip, take);
    return pageOf(
      rows.map((r) => toModelProviderDto(r, auth.tenantId)),
      total,
      query,
    );
  }

  async get(auth: AuthContext, id: string): Promise<ModelProviderDto> {
    return toModelProviderDto(await this.loadVisible(auth.tenantId, id), auth.tenantId);
  }

  async update(auth: AuthContext, id: string, dto: UpdateModelProviderDto): Promise<ModelProviderDto> {
    const row = await this.loadVisible(auth.tenantId, id);
    this.assertWritable(auth, row.tenantId);
    if (dto.baseUrl !== undefined) assertNoUrlCredential(dto.baseUrl);
    assertKeyFillable(row.tenantId, dto.apiKey);
    if (dto.name !== undefined) await this.assertNameFree(row.scopeKey, dto.name, id);
    const changes: Partial<ModelProviderEntity> = {
      ...(dto.name !== undefined && { name: dto.name, nameKey: nameKeyOf(dto.name) }),
      ...(dto.kind !== undefined && { kind: dto.kind }),
      ...(dto.baseUrl !== undefined && { baseUrl: dto.baseUrl }),
      ...(dto.apiKey !== undefined && { apiKeyRef: dto.apiKey }),
      ...(dto.model !== undefined && { model: dto.model }),
      ...(dto.options !== undefined && { options: { ...dto.options } }),
      updatedAt: Date.now(),
    };
    await this.namingGuarded(row.scopeKey, dto.name ?? row.name, () => this.repo.update(id, changes));
    this.chat.forget(id);
    // Read again: the version is the database's (another change may have landed with this one).
    return toModelProviderDto((await this.repo.find(id)) ?? { ...row, ...changes }, auth.tenantId);
  }

  async remove(auth: AuthContext, id: string): Promise<ModelProviderDto> {
    const row = await this.loadVisible(auth.tenantId, id);
    this.assertWritable(auth, row.tenantId);
    await this.repo.delete(id);
    this.chat.forget(id);
    return toModelProviderDto(row, auth.tenantId);
  }

  /**
   * The provider an agent of `tenantId` may use: its tenant's own or a platform-wide one (another tenant's is
   * 404, as if it did not exist). `tenantId` null: the platform key sees every provider.
   */
  async loadVisible(tenantId: string | null, id: string): Promise<ModelProviderEntity> {
    const row = await this.repo.find(id);
    if (!row || (tenantId !== null && row.tenantId !== null && row.tenantId !== tenantId)) {
      throw new DomainError(
        CommonErrorCode.NOT_FOUND,
        `No model provider ${id} in your tenant or platform-wide; list them with GET /api/v1/admin/model-providers.`,
        { modelProviderId: id },
      );
    }
    return row;
  }

  private assertWritable(auth: AuthContext, tenantId: string | null): void {
    if (auth.tenantId === null) return;
    if (tenantId === null) {
      throw new DomainError(
        CommonErrorCode.FORBIDDEN,
        'Platform-wide model providers are managed with the platform admin key (ADMIN_API_KEY); pass your tenantId to manage your own.',
      );
    }
    if (tenantId !== auth.tenantId) {
      throw new DomainError(
        CommonErrorCode.FORBIDDEN,
        `Your admin key is bound to tenant ${auth.tenantId}; manage model providers of that tenant.`,
      );
    }
  }

  private async assertNameFree(scopeKey: string, name: string, exceptId?: string): Promise<void> {
    if (await this.repo.nameTaken(scopeKey, nameKeyOf(name), exceptId)) throw nameTaken(scopeKey, name);
  }

  /** A concurrent create or rename that took the name first fails `write` on the unique index: the same 409. */
  private async namingGuarded(scopeKey: string, name: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken(scopeKey, name);
      throw err;
    }
  }
}

function nameTaken(scopeKey: string, name: string): DomainError {
  return new DomainError(
    ModelProvidersErrorCode.MODEL_PROVIDER_NAME_TAKEN,
    `${scopeKey === PLATFORM_SCOPE ? 'The platform' : `Tenant ${scopeKey}`} already has a model provider named ${name} (names ignore case); pick another name.`,
    { name },
  );
}

/** Credentials in the URL would be stored and shown in the clear: the key goes in `apiKey` as a reference. */
function assertNoUrlCredential(baseUrl: string): void {
  const problem = urlCredentialProblem(baseUrl, 'baseUrl', 'put the key in apiKey as ${secret:NAME}');
  if (problem) throw validationFailed([problem]);
}

/** A tenant's provider reads its key from that tenant's secrets: a reference no tenant secret's name fits is refused. */
function assertKeyFillable(tenantId: string | null, apiKey: string | null | undefined): void {
  const problems = apiKey ? tenantSecretRefProblems(tenantId, { apiKey }) : [];
  if (problems.length) throw validationFailed(problems);
}

/** A provider as an admin of `viewerTenantId` sees it: a platform-wide one's key reference is masked for a tenant. */
export function toModelProviderDto(row: ModelProviderEntity, viewerTenantId: string | null): ModelProviderDto {
  const hideKeyName = viewerTenantId !== null && row.tenantId === null && row.apiKeyRef !== null;
  return {
    id: row.id,
    name: row.name,
    tenantId: row.tenantId,
    kind: row.kind,
    baseUrl: row.baseUrl,
    apiKey: hideKeyName ? maskSecretRefs(row.apiKeyRef!) : row.apiKeyRef,
    model: row.model,
    options: row.options ?? {},
    version: row.version,
    createdAt: toIso(row.createdAt)!,
    updatedAt: toIso(row.updatedAt)!,
  };
}
