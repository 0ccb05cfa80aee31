import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { runStatement } from '@app/database/run-statement';
import { isUniqueViolation } from '@app/database/unique-violation';

/** The outcome of a claim: taken, or held by someone else until `expiresAt`. */
export type LeaseClaim = { acquired: true } | { acquired: false; owner: string; expiresAt: number };

/**
 * `mcp_sync_lease` with plain SQL valid on SQLite, MySQL 8 and MariaDB: a claim INSERTs the row (the primary
 * key decides between concurrent claimers) or takes over an expired one with a compare-and-set UPDATE;
 * renewals and releases only touch a row the caller still owns.
 */
@Injectable()
export class McpSyncLeaseRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async claim(serviceKey: string, owner: string, now: number, ttlMs: number): Promise<LeaseClaim> {
    // Twice: the holder may release between our failed INSERT and our read.
    for (let round = 0; round < 2; round++) {
      try {
        await runStatement(
          this.dataSource,
          'INSERT INTO mcp_sync_lease (service_key, owner, expires_at) VALUES (?, ?, ?)',
          [serviceKey, owner, now + ttlMs],
        );
        return { acquired: true };
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
      }
      const taken = await runStatement(
        this.dataSource,
        'UPDATE mcp_sync_lease SET owner = ?, expires_at = ? WHERE service_key = ? AND expires_at < ?',
        [owner, now + ttlMs, serviceKey, now],
      );
      if (taken === 1) return { acquired: true };
      const rows: Array<{ owner: string; expires_at: string | number }> = await this.dataSource.query(
        'SELECT owner, expires_at FROM mcp_sync_lease WHERE service_key = ?',
        [serviceKey],
      );
      if (rows[0]) return { acquired: false, owner: rows[0].owner, expiresAt: Number(rows[0].expires_at) };
    }
    return { acquired: false, owner: 'unknown', expiresAt: now };
  }

  /** Extends a lease the owner still holds; false when it lost it (expired and taken over). Pass a transaction's manager to fence its writes. */
  async renew(serviceKey: string, owner: string, until: number, manager?: EntityManager): Promise<boolean> {
    const sql = 'UPDATE mcp_sync_lease SET expires_at = ? WHERE service_key = ? AND owner = ?';
    return (await runStatement(manager ?? this.dataSource, sql, [until, serviceKey, owner])) === 1;
  }

  async release(serviceKey: string, owner: string): Promise<void> {
    await runStatement(this.dataSource, 'DELETE FROM mcp_sync_lease WHERE service_key = ? AND owner = ?', [
      serviceKey,
      owner,
    ]);
  }
}
