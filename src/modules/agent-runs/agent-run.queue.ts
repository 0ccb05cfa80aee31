import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AgentRunEntity } from './agent-run.entity';

/** Tenants with claimable runs looked at per claim (the least busy of them goes first). */
const TENANT_WINDOW = 200;
const CLAIMABLE = "((status = 'QUEUED' AND not_before <= :now) OR (status = 'RUNNING' AND lease_until < :now))";

/**
 * The durable queue of runs, shared by every instance: a run is claimed by setting its owner and lease in a
 * transaction (`SELECT ... FOR UPDATE SKIP LOCKED` on MySQL/MariaDB, so instances never wait on each other's
 * candidates; SQLite serializes writers). A RUNNING run whose lease expired is claimable again: its worker died
 * and the run continues from its checkpoint. Fair across tenants: the tenant with the fewest running runs goes
 * first (ties: the one waiting longest), then its oldest run, so one tenant's burst, however long, cannot starve
 * the others.
 */
@Injectable()
export class AgentRunQueue {
  private readonly mysql: boolean;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {
    this.mysql = dataSource.options.type !== 'better-sqlite3';
  }

  /** `skip`: runs this instance reserved for a loop lent to the call that waits for them (never claimed here). */
  async claim(owner: string, leaseMs: number, skip: ReadonlySet<string> = new Set()): Promise<AgentRunEntity | null> {
    const now = Date.now();
    return this.dataSource.transaction(async (m) => {
      const waiting: Array<{ tenantId: string; oldest: number | string }> = await m
        .createQueryBuilder(AgentRunEntity, 'r')
        .select('r.tenantId', 'tenantId')
        .addSelect('MIN(r.updatedAt)', 'oldest')
        .where(CLAIMABLE, { now })
        .groupBy('r.tenantId')
        .orderBy('oldest', 'ASC')
        .limit(TENANT_WINDOW)
        .getRawMany();
      if (waiting.length === 0) return null;
      const busy = await this.runningByTenant(m, now);
      // RUNS_MAX_RUNNING_PER_TENANT: a tenant with that many runs worked (by any instance) waits for one of them.
      const cap = this.config.agentLoop.maxRunningPerTenant;
      const order = waiting
        .map((w, i) => ({ tenantId: w.tenantId, busy: busy.get(w.tenantId) ?? 0, i }))
        .filter((t) => cap === 0 || t.busy < cap)
        .sort((a, b) => a.busy - b.busy || a.i - b.i);
      for (const { tenantId } of order) {
        const query = m
          .createQueryBuilder(AgentRunEntity, 'r')
          .select(['r.id'])
          .where(`r.tenant_id = :tenantId AND ${CLAIMABLE}`, { tenantId, now })
          .orderBy('r.updatedAt', 'ASC')
          .limit(1);
        if (skip.size > 0) query.andWhere('r.id NOT IN (:...skip)', { skip: [...skip] });
        // Runs another instance is claiming right now are skipped (MySQL): this one takes the tenant's next, if any.
        if (this.mysql) query.setLock('pessimistic_write').setOnLocked('skip_locked');
        const pick = await query.getOne();
        if (!pick) continue;
        return this.take(m, pick.id, owner, leaseMs, now);
      }
      return null;
    });
  }

  /** Claims the run `id` if it is claimable now: a waiting call's lent loop works only the run it waits for. */
  claimRun(id: string, owner: string, leaseMs: number): Promise<AgentRunEntity | null> {
    return this.take(this.dataSource.manager, id, owner, leaseMs, Date.now());
  }

  private async take(
    m: EntityManager,
    id: string,
    owner: string,
    leaseMs: number,
    now: number,
  ): Promise<AgentRunEntity | null> {
    const claimed = await m
      .createQueryBuilder()
      .update(AgentRunEntity)
      .set({ status: 'RUNNING', owner, leaseUntil: now + leaseMs, updatedAt: now })
      .where(`id = :id AND ${CLAIMABLE}`, { id, now })
      .execute();
    if ((claimed.affected ?? 0) !== 1) return null;
    return m.getRepository(AgentRunEntity).findOneBy({ id });
  }

  /** Extends the lease of a run `owner` holds; false when it no longer does. */
  async renew(runId: string, owner: string, leaseMs: number): Promise<boolean> {
    const result = await this.dataSource
      .createQueryBuilder()
      .update(AgentRunEntity)
      .set({ leaseUntil: Date.now() + leaseMs })
      .where("id = :id AND owner = :owner AND status = 'RUNNING'", { id: runId, owner })
      .execute();
    return (result.affected ?? 0) === 1;
  }

  /** Gives a run back to the queue (shutdown, or a tool call still running elsewhere), claimable after `delayMs`. */
  async release(runId: string, owner: string, delayMs = 0): Promise<void> {
    const now = Date.now();
    await this.dataSource
      .createQueryBuilder()
      .update(AgentRunEntity)
      .set({
        status: 'QUEUED',
        owner: null,
        notBefore: now + delayMs,
        updatedAt: now,
      })
      .where("id = :id AND owner = :owner AND status = 'RUNNING'", { id: runId, owner })
      .execute();
  }

  /**
   * Queues again the runs stopped for a human whose session was decided meanwhile (a runtime's resume or an
   * admin's decision left it ACTIVE, or CLOSED by a rejection): the run continues from its checkpoint. The request it
   * stopped for is decided: the run no longer shows it (GET .../runs/{runId} showed it beside RUNNING until the run
   * stopped again, many model rounds later).
   */
  async wakeDecided(): Promise<number> {
    const now = Date.now();
    const result = await this.dataSource
      .createQueryBuilder()
      .update(AgentRunEntity)
      .set({ status: 'QUEUED', owner: null, notBefore: now, updatedAt: now, hitlRequest: null })
      .where("status IN ('INTERRUPTED', 'PAUSED')")
      // EXISTS, a primary-key probe per stopped run: SQLite ran `IN (SELECT ...)` as a list of every session.
      .andWhere(
        "EXISTS (SELECT 1 FROM agent_session s WHERE s.id = agent_run.session_id AND s.status <> 'INTERRUPTED')",
      )
      .execute();
    return result.affected ?? 0;
  }

  private async runningByTenant(m: EntityManager, now: number): Promise<Map<string, number>> {
    const rows: Array<{ tenant_id: string; n: number | string }> = await m.query(
      "SELECT tenant_id, COUNT(*) AS n FROM agent_run WHERE status = 'RUNNING' AND lease_until >= ? GROUP BY tenant_id",
      [now],
    );
    return new Map(rows.map((r) => [r.tenant_id, Number(r.n)]));
  }
}
