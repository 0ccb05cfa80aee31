import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import { DataSource, EntityManager } from 'typeorm';
import { HotSql } from './hot-sql';

/**
 * Select-list items that read both stamps (`cv_global`, `cv_tenant`) in any statement; bind the tenant id at the `?`.
 * See {@link ConfigVersionService.observe}.
 */
export const VERSION_SELECT =
  '(SELECT version FROM config_version WHERE id = 1) AS cv_global, (SELECT version FROM tenant_config_version WHERE tenant_id = ?) AS cv_tenant';

function versionOf(row: Record<string, unknown>): string {
  return `${Number(row.cv_global ?? 0)}:${Number(row.cv_tenant ?? 0)}`;
}

/**
 * Tenants whose last version read is remembered, the least recently read forgotten first (its next read goes to the
 * database): else every tenant ever served kept its entries until restart.
 */
export const MAX_REMEMBERED_TENANT_VERSIONS = 10_000;

/**
 * The configuration version stamps shared by every gateway instance on one database: one global stamp (platform-
 * wide changes) and one per tenant (that tenant's tools, agents, bindings, capability). Every write that can
 * change what a model may see calls {@link bump} in its transaction; a tenant's caches compare {@link read}
 * with the version they loaded, so a write in one tenant does not reload every other tenant's snapshot.
 *
 * On SQLite the read is skipped when provably nothing could have changed: no other connection committed
 * (`PRAGMA data_version` unchanged) and this process called no {@link bump} since the last read of that tenant.
 * All statements of this process share one connection behind the SQLite gate, so a read cannot interleave with
 * an open transaction: a bump is counted once its UPDATE ran (before its commit), so the next read goes to the
 * database and, if the transaction is still open, waits for it.
 */
@Injectable()
export class ConfigVersionService {
  private localBumps = 0;
  private readonly lastRead = new LRUCache<string, { probe: string; version: string }>({
    max: MAX_REMEMBERED_TENANT_VERSIONS,
  });
  /** The version each tenant's last {@link read} returned (both dialects). */
  private readonly seen = new LRUCache<string, string>({ max: MAX_REMEMBERED_TENANT_VERSIONS });

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sql: HotSql,
  ) {}

  /** The version a tenant's caches depend on: `<global>:<tenant>` (one query, or none on SQLite when nothing changed). */
  async read(tenantId: string): Promise<string> {
    const version = await this.readVersion(tenantId);
    this.seen.set(tenantId, version);
    return version;
  }

  /**
   * The version the last {@link read} of `tenantId` in this process returned, without a query; undefined before
   * the first. Callers on a request path that already read the tenant's version (act, execute) use it to follow
   * writes of every instance at no extra cost.
   */
  lastSeen(tenantId: string): string | undefined {
    return this.seen.get(tenantId);
  }

  /**
   * How many {@link bump}s this process has made (each counted once its UPDATE ran). A cache that skips version
   * reads for a while (TOOL_SPECS_CACHE_CHECK_MS) compares it to see this instance's own writes at once.
   */
  localBumpCount(): number {
    return this.localBumps;
  }

  private async readVersion(tenantId: string): Promise<string> {
    const dataVersion = this.sql.sqliteDataVersion();
    if (dataVersion === undefined) return this.readFromDatabase(tenantId);
    const probe = `${dataVersion}:${this.localBumps}`;
    const last = this.lastRead.get(tenantId);
    if (last?.probe === probe) return last.version;
    const version = await this.readFromDatabase(tenantId);
    this.lastRead.set(tenantId, { probe, version });
    return version;
  }

  /**
   * The version of a row read by a statement that carries {@link VERSION_SELECT} (another hot read of the same
   * request, e.g. act's session read: one round trip instead of two), recorded as {@link read} records it.
   */
  observe(tenantId: string, row: Record<string, unknown>): string {
    const version = versionOf(row);
    this.seen.set(tenantId, version);
    return version;
  }

  private async readFromDatabase(tenantId: string): Promise<string> {
    const [row] = await this.sql.all(`SELECT ${VERSION_SELECT}`, [tenantId]);
    return versionOf(row ?? {});
  }

  /**
   * Bumps the stamp of `tenantId`, or the global one for platform-wide changes (null). Call inside the same
   * transaction as the write when there is one, so the stamp and the change commit together.
   */
  async bump(manager: EntityManager = this.dataSource.manager, tenantId: string | null = null): Promise<void> {
    try {
      await this.increment(manager, tenantId);
    } finally {
      // Counted once the UPDATE ran, never before: a read that starts while the UPDATE still waits for the gate
      // (a bump outside a transaction) would otherwise cache the old version under the new count. Inside a
      // transaction, a read counted after this waits for the commit (the gate), so it sees the new stamp.
      this.localBumps++;
    }
  }

  /** Raw statements through HotSql (the one way these tables are read and written), in the caller's transaction. */
  private async increment(manager: EntityManager, tenantId: string | null): Promise<void> {
    const db = this.sql.on(manager);
    if (tenantId === null) {
      await db.run('UPDATE config_version SET version = version + 1 WHERE id = 1', []);
      return;
    }
    // One upsert, never an UPDATE then an INSERT: on MySQL an UPDATE that finds no row locks the gap, and two first
    // writes of a tenant at once then deadlocked, each INSERT waiting for the other's gap (one answered 500).
    const upsert =
      manager.connection.options.type === 'better-sqlite3'
        ? 'ON CONFLICT (tenant_id) DO UPDATE SET version = version + 1'
        : 'ON DUPLICATE KEY UPDATE version = version + 1';
    await db.run(`INSERT INTO tenant_config_version (tenant_id, version) VALUES (?, 1) ${upsert}`, [tenantId]);
  }
}
