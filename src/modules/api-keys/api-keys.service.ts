import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { hash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeyDto, CreateApiKeyDto, CreatedApiKeyDto } from './api-keys.dto';
import { ApiKeyResolver, AuthContext } from '@app/common/auth/auth-context';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { toIso } from '@app/database/epoch-ms.transformer';
import { Page, PageQueryDto, pageOf, pageWindow } from '@app/common/dto/page.dto';

const PLATFORM_ADMIN: AuthContext = { keyId: 'platform-admin', role: 'admin', tenantId: null };
/** A deleted key stops working on this instance at once and on other instances within this time. */
const RESOLVE_CACHE_TTL_MS = 5_000;

/** One-shot `crypto.hash`: every request hashes its key, and this skips a Hash object per call. */
function sha256(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}

@Injectable()
export class ApiKeysService implements ApiKeyResolver {
  private readonly adminKeyHash: Buffer | undefined;
  /**
   * Keys that resolved, by hash. One whose 5 s are over is looked up again but stays held meanwhile (until the
   * lookup replaces it, or finds the key gone): it is still known ({@link isKnown}) while its lookup runs.
   */
  private readonly cache = new LRUCache<string, AuthContext>({
    max: 10_000,
    ttl: RESOLVE_CACHE_TTL_MS,
    noDeleteOnStaleGet: true,
  });
  /**
   * Keys that did not, by hash, in a cache of their own: a caller sending ever new made-up keys fills only this one,
   * so it cannot push the real keys out of theirs and make every real request read the database.
   */
  private readonly unknown = new LRUCache<string, true>({ max: 10_000, ttl: RESOLVE_CACHE_TTL_MS });
  /**
   * Moves on every delete: a lookup that read its row before a delete finished must not cache it after the delete
   * cleared the cache (the deleted key would work here for RESOLVE_CACHE_TTL_MS more).
   */
  private deletions = 0;
  /**
   * Lookups reading the database, by hash: concurrent requests with one key not in either cache (after a restart, or
   * one made-up key sent many times at once) share one read. Forgotten on every delete, so a request that starts
   * after a delete reads again rather than take a row read before it.
   */
  private readonly lookups = new Map<string, Promise<AuthContext | null>>();

  constructor(
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.adminKeyHash = config.adminApiKey ? sha256(config.adminApiKey) : undefined;
  }

  async resolve(presentedKey: string): Promise<AuthContext | null> {
    const hash = sha256(presentedKey);
    if (this.adminKeyHash && timingSafeEqual(hash, this.adminKeyHash)) return PLATFORM_ADMIN;
    const hex = hash.toString('hex');
    const cached = this.cache.get(hex);
    if (cached !== undefined) return cached;
    if (this.unknown.has(hex)) return null;
    let lookup = this.lookups.get(hex);
    if (!lookup) {
      const shared = this.lookUp(hex).finally(() => {
        if (this.lookups.get(hex) === shared) this.lookups.delete(hex);
      });
      this.lookups.set(hex, (lookup = shared));
    }
    return lookup;
  }

  private async lookUp(hex: string): Promise<AuthContext | null> {
    const deletionsBefore = this.deletions;
    const row = await this.keys.findOne({ where: { keyHash: hex } });
    if (!row) {
      this.cache.delete(hex);
      this.unknown.set(hex, true);
      return null;
    }
    const auth: AuthContext = { keyId: row.id, role: row.role, tenantId: row.tenantId };
    if (this.deletions === deletionsBefore) this.cache.set(hex, auth);
    return auth;
  }

  isKnown(presentedKey: string): boolean {
    const hash = sha256(presentedKey);
    if (this.adminKeyHash && timingSafeEqual(hash, this.adminKeyHash)) return true;
    // Its 5 s over or not: this only lets the key be looked up (resolve decides).
    return this.cache.peek(hash.toString('hex'), { allowStale: true }) !== undefined;
  }

  async create(caller: AuthContext, dto: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    assertSameTenant(caller, dto.tenantId);
    const key = `gwk_${randomBytes(32).toString('base64url')}`;
    const row = this.keys.create({
      id: randomUUID(),
      name: dto.name,
      role: dto.role,
      tenantId: dto.tenantId,
      keyHash: sha256(key).toString('hex'),
      keyPrefix: key.slice(0, 12),
      createdAt: Date.now(),
    });
    await this.keys.insert(row);
    return { ...toDto(row), key };
  }

  async list(caller: AuthContext, query: PageQueryDto): Promise<Page<ApiKeyDto>> {
    const where = caller.tenantId === null ? {} : { tenantId: caller.tenantId };
    const [rows, total] = await this.keys.findAndCount({
      where,
      order: { createdAt: 'ASC', id: 'ASC' },
      ...pageWindow(query),
    });
    return pageOf(rows.map(toDto), total, query);
  }

  async remove(caller: AuthContext, id: string): Promise<ApiKeyDto> {
    const row = await this.keys.findOne({ where: { id } });
    if (!row || (caller.tenantId !== null && row.tenantId !== caller.tenantId)) {
      throw new DomainError(
        CommonErrorCode.NOT_FOUND,
        `No API key ${id} in your tenant; list keys with GET /api/v1/admin/api-keys.`,
      );
    }
    await this.keys.delete({ id });
    this.deletions++;
    this.lookups.clear();
    this.cache.delete(row.keyHash);
    return toDto(row);
  }
}

function assertSameTenant(caller: AuthContext, tenantId: string): void {
  if (caller.tenantId !== null && caller.tenantId !== tenantId) {
    throw new DomainError(
      CommonErrorCode.FORBIDDEN,
      `Your admin key is bound to tenant ${caller.tenantId}; it can create keys only for that tenant.`,
    );
  }
}

function toDto(row: ApiKeyEntity): ApiKeyDto {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    tenantId: row.tenantId,
    keyPrefix: row.keyPrefix,
    createdAt: toIso(row.createdAt)!,
  };
}
