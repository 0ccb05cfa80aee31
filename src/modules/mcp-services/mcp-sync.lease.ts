import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { McpSyncLeaseRepository } from './mcp-sync-lease.repository';

/** How long a sync lease lives without renewal; renewed every third of it while the sync runs. */
const MCP_SYNC_LEASE_TTL_MS = 30_000;

/** A held lease: fence writes with it, release it when done. */
export interface HeldMcpSyncLease {
  readonly key: string;
  readonly owner: string;
  /** Inside the write transaction: false when the lease was lost (expired and taken over), so nothing may be written. */
  fence(manager: EntityManager): Promise<boolean>;
  release(): Promise<void>;
}

/** The outcome of {@link McpSyncLeases.acquire}. */
export type McpSyncLeaseAttempt = { held: HeldMcpSyncLease } | { held: null; owner: string; expiresAt: number };

class LeaseHandle implements HeldMcpSyncLease {
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly key: string,
    readonly owner: string,
    private readonly repo: McpSyncLeaseRepository,
    private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => void this.renew(), Math.floor(MCP_SYNC_LEASE_TTL_MS / 3));
    this.timer.unref();
  }

  fence(manager: EntityManager): Promise<boolean> {
    return this.repo.renew(this.key, this.owner, Date.now() + MCP_SYNC_LEASE_TTL_MS, manager);
  }

  async release(): Promise<void> {
    clearInterval(this.timer);
    await this.repo
      .release(this.key, this.owner)
      .catch((err: unknown) =>
        this.logger.warn(`Could not release the sync lease of ${this.key}: ${(err as Error).message}`),
      );
  }

  private async renew(): Promise<void> {
    try {
      if (!(await this.repo.renew(this.key, this.owner, Date.now() + MCP_SYNC_LEASE_TTL_MS)))
        this.logger.warn(`Lost the sync lease of ${this.key}; its writes will be refused.`);
    } catch (err) {
      this.logger.warn(`Could not renew the sync lease of ${this.key}: ${(err as Error).message}`);
    }
  }
}

/**
 * The cross-instance half of "one sync at a time per service": a row in `mcp_sync_lease` per MCP service
 * record. The owner is this instance's id plus a random token per claim, so a release or a fence never
 * touches a lease claimed again since. A claim held by someone else is not waited for: the caller reports
 * the sync as skipped (the holder's sync of the same service covers the same upstream state; the scheduled
 * repair catches a change it may have missed).
 */
@Injectable()
export class McpSyncLeases {
  private readonly logger = new Logger(McpSyncLeases.name);

  constructor(
    private readonly repo: McpSyncLeaseRepository,
    @Inject(GATEWAY_CONFIG) private readonly config: Pick<GatewayConfig, 'instanceId'>,
  ) {}

  async acquire(key: string): Promise<McpSyncLeaseAttempt> {
    const owner = `${this.config.instanceId}#${randomBytes(4).toString('hex')}`.slice(-128);
    const claim = await this.repo.claim(key, owner, Date.now(), MCP_SYNC_LEASE_TTL_MS);
    if (!claim.acquired) return { held: null, owner: claim.owner, expiresAt: claim.expiresAt };
    return { held: new LeaseHandle(key, owner, this.repo, this.logger) };
  }
}
