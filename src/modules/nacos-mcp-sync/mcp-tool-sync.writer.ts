import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ConfigVersionService } from '@app/database/config-version.service';
import { isUniqueViolation } from '@app/database/unique-violation';
import { ToolRegistryRepository } from '@app/modules/tool-registry/tool-registry.repository';
import { McpToolRowsRepository } from './mcp-tool-rows.repository';
import type { McpToolSyncPlan } from './mcp-tool-sync.plan';
import type { HeldMcpSyncLease } from './mcp-sync.lease';

/** How applying a plan ended: written, lost a race with another writer (re-read and plan again), or the lease was lost. */
export type McpToolSyncWrite = 'written' | 'raced' | 'lease-lost';

class Abort extends Error {
  constructor(readonly outcome: Exclude<McpToolSyncWrite, 'written'>) {
    super(outcome);
  }
}

/**
 * Applies a sync plan in ONE transaction: the lease is renewed first as a fence (a sync that lost its lease
 * writes nothing), then every insert and compare-and-set update, then the config-version bump, so every
 * gateway instance's caches see the whole change at once. A unique violation (a tool of another source took
 * a name meanwhile) or a lost compare-and-set (an admin changed a row) rolls everything back: `raced`.
 */
@Injectable()
export class McpToolSyncWriter {
  constructor(
    private readonly registry: ToolRegistryRepository,
    private readonly rows: McpToolRowsRepository,
    private readonly configVersion: ConfigVersionService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async apply(plan: McpToolSyncPlan, lease: HeldMcpSyncLease): Promise<McpToolSyncWrite> {
    if (plan.steps.length === 0) return 'written';
    try {
      await this.dataSource.transaction(async (m) => {
        if (!(await lease.fence(m))) throw new Abort('lease-lost');
        for (const step of plan.steps) {
          if (step.kind === 'insert') {
            await this.registry.insert(m, step.row);
          } else if (!(await this.rows.updateIfVersion(m, step.row.id, step.row.version, step.changes))) {
            throw new Abort('raced');
          }
        }
        await this.configVersion.bump(m);
      });
      return 'written';
    } catch (err) {
      if (err instanceof Abort) return err.outcome;
      if (isUniqueViolation(err)) return 'raced';
      throw err;
    }
  }
}
