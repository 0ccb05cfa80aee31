import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { ConfigVersionService } from '@app/database/config-version.service';
import { isUniqueViolation } from '@app/database/unique-violation';
import { ToolRegistryRepository } from '@app/modules/tool-registry/tool-registry.repository';
import { McpToolRowsRepository } from './mcp-tool-rows.repository';
import { McpServiceRepository } from './mcp-service.repository';
import type { McpToolSyncPlan, McpToolSyncStep } from './mcp-tool-sync.plan';
import type { HeldMcpSyncLease } from './mcp-sync.lease';
import type { McpServiceRecord } from './mcp-service.types';

/** The service a plan belongs to: its row is locked, its scope's configuration version bumped. */
type SyncedService = Pick<McpServiceRecord, 'id' | 'tenantId'>;

/**
 * How applying a plan ended: written, lost a race with another writer (re-read and plan again), the lease was lost,
 * or the service was deleted meanwhile.
 */
export type McpToolSyncWrite = 'written' | 'raced' | 'lease-lost' | 'service-gone';

/** A step the database refused (other than a unique violation): left out, the rest written. */
export interface McpToolSyncFailedStep {
  step: McpToolSyncStep;
  /** The driver's error code (never the message: it may quote the data). */
  reason: string;
  error: unknown;
}

class Abort extends Error {
  constructor(readonly outcome: Exclude<McpToolSyncWrite, 'written'>) {
    super(outcome);
  }
}

/**
 * Applies a sync plan in ONE transaction: the lease is renewed first as a fence (a sync that lost its lease
 * writes nothing), the service's row is locked (a service deleted since the sync started gets no tool back),
 * then every insert and compare-and-set update, then the config-version bump of the service's scope, so every
 * gateway instance's caches see the whole change at once. A unique violation (a tool of another source took
 * a name meanwhile) or a lost compare-and-set (an admin changed a row) rolls everything back: `raced`.
 * When the database refuses a row otherwise (a value too long for a MySQL column), the plan is written again
 * with each step under a savepoint: that row is left out and returned in `failed`, so one tool never fails
 * the whole sync (and a normal sync pays for no savepoints).
 */
@Injectable()
export class McpToolSyncWriter {
  constructor(
    private readonly registry: ToolRegistryRepository,
    private readonly rows: McpToolRowsRepository,
    private readonly services: McpServiceRepository,
    private readonly configVersion: ConfigVersionService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /** Writes the plan of `service`'s sync. */
  async apply(
    plan: McpToolSyncPlan,
    lease: HeldMcpSyncLease,
    service: SyncedService,
  ): Promise<{ outcome: McpToolSyncWrite; failed: McpToolSyncFailedStep[] }> {
    if (plan.steps.length === 0) return { outcome: 'written', failed: [] };
    try {
      return await this.write(plan, lease, service, false);
    } catch (err) {
      // Rare: written again, step by step under savepoints, to leave out only the rows the database refuses.
      if (isQueryFailure(err) && !isUniqueViolation(err)) return this.write(plan, lease, service, true);
      throw err;
    }
  }

  private async write(
    plan: McpToolSyncPlan,
    lease: HeldMcpSyncLease,
    service: SyncedService,
    stepwise: boolean,
  ): Promise<{ outcome: McpToolSyncWrite; failed: McpToolSyncFailedStep[] }> {
    const failed: McpToolSyncFailedStep[] = [];
    try {
      await this.dataSource.transaction(async (m) => {
        if (!(await lease.fence(m))) throw new Abort('lease-lost');
        if (!(await this.services.lockIfExists(m, service.id))) throw new Abort('service-gone');
        for (const step of plan.steps) {
          const error = stepwise ? await this.applyStep(m, step) : await this.applyOne(m, step);
          if (error)
            failed.push({ step, error, reason: String((error as { code?: string }).code ?? 'database error') });
        }
        // The service's scope only: a tenant's sync leaves every other tenant's caches as they are.
        await this.configVersion.bump(m, service.tenantId);
      });
      return { outcome: 'written', failed };
    } catch (err) {
      if (err instanceof Abort) return { outcome: err.outcome, failed: [] };
      if (isUniqueViolation(err)) return { outcome: 'raced', failed: [] };
      throw err;
    }
  }

  private async applyOne(m: EntityManager, step: McpToolSyncStep): Promise<undefined> {
    if (step.kind === 'insert') {
      await this.registry.insert(m, step.row);
    } else if (!(await this.registry.updateIfVersion(m, step.row.id, step.row.version, step.changes))) {
      throw new Abort('raced');
    }
    return undefined;
  }

  /** One step under a savepoint: undefined when written; the error when the database refused the row (the step is undone). */
  private async applyStep(m: EntityManager, step: McpToolSyncStep): Promise<unknown> {
    const savepoint = m.queryRunner!;
    await savepoint.startTransaction();
    try {
      await this.applyOne(m, step);
      await savepoint.commitTransaction();
      return undefined;
    } catch (err) {
      await savepoint.rollbackTransaction();
      if (err instanceof Abort || isUniqueViolation(err) || !isQueryFailure(err)) throw err;
      return err;
    }
  }
}

/** An error the database answered for this row (not a lost connection or a bug: those still fail the sync). */
function isQueryFailure(err: unknown): boolean {
  return err instanceof QueryFailedError;
}
