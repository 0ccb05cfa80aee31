import { createPool, Pool } from 'mysql2/promise';
import type { BenchCall } from './load-runner';

/**
 * What the journal of one `act` call needs from MySQL/MariaDB at the least, made by a bare mysql2 pool (no
 * gateway): the one read (the call's journal entry, by primary key), then two durable commits: the STARTED
 * claim (INSERT) and the outcome (UPDATE), each an autocommit statement. Same table, same indexes, same row
 * as the gateway writes, on the same server, in the same run: `act`'s own time minus this is what the
 * gateway's code adds.
 */
export interface MysqlJournalFloor {
  call: BenchCall;
  close(): Promise<void>;
}

export interface MysqlJournalFloorOptions {
  /** The tenant its entries are written under (one per floor sharing a database: their keys must not meet). */
  tenantId: string;
  /**
   * The tool call itself, made between the claim and the outcome as `act` makes it: a bare client that journals
   * its calls. Its statements then wait on a server (and a machine) that did other work since the last one.
   */
  toolCall?: BenchCall;
}

const KEY = 'tenant_id = ? AND session_id = ? AND tool_call_id = ?';

export async function connectMysqlJournalFloor(
  url: string,
  options: MysqlJournalFloorOptions,
): Promise<MysqlJournalFloor> {
  const pool: Pool = createPool({ uri: url, connectionLimit: 16, supportBigNumbers: true });
  let seq = 0;
  const call: BenchCall = async (caller) => {
    const key = [options.tenantId, `floor-session-${caller}`, `floor-${caller}-${++seq}`];
    await pool.execute(`SELECT state, fingerprint, lease_expires_at FROM tool_call_journal WHERE ${KEY}`, key);
    const now = Date.now();
    await pool.execute(
      `INSERT INTO tool_call_journal (tenant_id, session_id, tool_call_id, tool_name, tool_id, fingerprint, arguments_json,
         side_effect, state, result_status, attempts, iteration, owner, lease_expires_at, started_at, finished_at,
         duration_ms, is_error, error_class, content, total_chars, result_chunks, inline_limit)
       VALUES (?, ?, ?, 'echo', NULL, ?, ?, 'READ_ONLY', 'STARTED', NULL, 0, 1, 'floor', ?, ?, NULL, NULL, 0, NULL, NULL, 0, 0, 20000)`,
      [...key, 'f'.repeat(64), '{"message":"hello from the bench"}', now + 30_000, now],
    );
    await options.toolCall?.(caller);
    await pool.execute(
      `UPDATE tool_call_journal SET state = 'COMPLETED', result_status = 'COMPLETED', attempts = attempts + 1, finished_at = ?,
         duration_ms = 1, is_error = 0, content = ?, total_chars = 20 WHERE ${KEY} AND state = 'STARTED' AND owner = 'floor'`,
      [Date.now(), 'hello from the bench', ...key],
    );
  };
  return { call, close: () => pool.end() };
}
