import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { AuthContext } from '@app/common/auth/auth-context';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { DomainError } from '@app/common/errors/domain-error';
import { validationFailed } from '@app/common/errors/validation';
import { Page, pageOf, PageQueryDto, pageWindow } from '@app/common/dto/page.dto';
import { ConfigVersionService } from '@app/database/config-version.service';
import { toIso } from '@app/database/epoch-ms.transformer';
import { isDeadlock, isUniqueViolation } from '@app/database/unique-violation';
import { TenantSecretEntity } from './tenant-secret.entity';
import { TenantSecretsRepository } from './tenant-secrets.repository';
import { TenantSecretsCipher } from './tenant-secrets.cipher';
import { ToolSecretsResolver } from './tool-secrets.resolver';
import { TenantSecretsErrorCode } from './tenant-secrets.errors';
import type { PutTenantSecretDto, TenantSecretDto } from './tenant-secrets.dto';
import { TENANT_SECRET_NAME_PATTERN, TENANT_SECRET_NAME_RULE } from './tool-secret.refs';

/** Tries of one PUT whose write clashes each time with other writers of the same name. */
const PUT_ATTEMPTS = 5;

/**
 * Tenant secrets: set (encrypted with SECRETS_KEY), list (names and dates), delete. A tenant admin key acts on
 * its own tenant only (another tenant is 404), the platform key on any. Every write bumps the tenant's config
 * version in its transaction, which is how every instance's resolver learns of it.
 */
@Injectable()
export class TenantSecretsService {
  constructor(
    private readonly repo: TenantSecretsRepository,
    private readonly cipher: TenantSecretsCipher,
    private readonly resolver: ToolSecretsResolver,
    private readonly configVersion: ConfigVersionService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /** Sets the secret; `created` says whether it was new (201) or replaced (200). */
  async put(
    auth: AuthContext,
    tenantId: string,
    name: string,
    dto: PutTenantSecretDto,
  ): Promise<{ secret: TenantSecretDto; created: boolean }> {
    assertTenant(auth, tenantId);
    assertName(name);
    if (!this.cipher.configured) {
      throw new DomainError(
        TenantSecretsErrorCode.SECRETS_NOT_CONFIGURED,
        'Tenant secrets cannot be stored: the gateway has no SECRETS_KEY to encrypt them with. The platform operator must set SECRETS_KEY (32 bytes as 64 hex characters, e.g. `openssl rand -hex 32`) and restart the gateway.',
      );
    }
    const valueEncrypted = this.cipher.encrypt(tenantId, name, dto.value);
    const now = Date.now();
    const set = async (m: EntityManager) => {
      // Replaced only if the row read is still there to update: a DELETE may have landed in between.
      const existing = await this.repo.findOne(tenantId, name, m);
      if (existing && (await this.repo.updateValue(m, tenantId, name, valueEncrypted, now)))
        return { row: { ...existing, valueEncrypted, updatedAt: now }, created: false };
      const row: TenantSecretEntity = { tenantId, name, valueEncrypted, createdAt: now, updatedAt: now };
      await this.repo.insert(m, row);
      return { row, created: true };
    };
    // Another writer created it after this PUT read (on another instance, or on MySQL's pool), or MySQL chose this write
    // as a deadlock victim (rolled back whole): the PUT tries again from its read, and replaces the value (the last
    // writer wins) or creates it. Each clash means another writer got through, so only PUTs and DELETEs of this one
    // name without pause keep one from landing: after PUT_ATTEMPTS tries it answers 409, never 500.
    for (let attempt = 1; ; attempt++) {
      try {
        const saved = await this.write(tenantId, set);
        return { secret: toDto(saved.row), created: saved.created };
      } catch (err) {
        if (!isUniqueViolation(err) && !isDeadlock(err)) throw err;
        if (attempt >= PUT_ATTEMPTS) throw keptChanging(tenantId, name);
      }
    }
  }

  async list(auth: AuthContext, tenantId: string, query: PageQueryDto): Promise<Page<TenantSecretDto>> {
    assertTenant(auth, tenantId);
    const { skip, take } = pageWindow(query);
    const [rows, total] = await this.repo.page(tenantId, skip, take);
    return pageOf(rows.map(toDto), total, query);
  }

  async delete(auth: AuthContext, tenantId: string, name: string): Promise<TenantSecretDto> {
    assertTenant(auth, tenantId);
    assertName(name);
    const row = await this.repo.findOne(tenantId, name);
    if (!row) throw notFound(tenantId, name);
    await this.write(tenantId, async (m) => {
      // Another DELETE may have removed it since it was read: one of them deleted it, the others find nothing.
      if (!(await this.repo.delete(m, tenantId, name))) throw notFound(tenantId, name);
    });
    return toDto(row);
  }

  private async write<T>(tenantId: string, fn: (m: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.dataSource.transaction(async (m) => {
        const result = await fn(m);
        await this.configVersion.bump(m, tenantId);
        return result;
      });
    } finally {
      this.resolver.invalidate(tenantId);
    }
  }
}

function assertTenant(auth: AuthContext, tenantId: string): void {
  if (auth.tenantId !== null && auth.tenantId !== tenantId) {
    throw new DomainError(
      CommonErrorCode.NOT_FOUND,
      `No tenant ${tenantId} in your scope; your admin key manages the secrets of tenant ${auth.tenantId}.`,
    );
  }
}

function assertName(name: string): void {
  if (!TENANT_SECRET_NAME_PATTERN.test(name)) {
    throw validationFailed([
      {
        field: 'name',
        problems: [`must be ${TENANT_SECRET_NAME_RULE}, as \${secret:NAME} references it`],
      },
    ]);
  }
}

function keptChanging(tenantId: string, name: string): DomainError {
  return new DomainError(
    CommonErrorCode.CONCURRENT_MODIFICATION,
    `Secret ${name} of tenant ${tenantId} was created or deleted by other requests each of the ${PUT_ATTEMPTS} times this PUT tried to set it; nothing was stored by this PUT. Send it again.`,
    { name },
  );
}

function notFound(tenantId: string, name: string): DomainError {
  return new DomainError(
    CommonErrorCode.NOT_FOUND,
    `Tenant ${tenantId} has no secret ${name}; list them with GET /api/v1/admin/tenants/${tenantId}/secrets.`,
  );
}

function toDto(row: TenantSecretEntity): TenantSecretDto {
  return { name: row.name, tenantId: row.tenantId, createdAt: toIso(row.createdAt)!, updatedAt: toIso(row.updatedAt)! };
}
