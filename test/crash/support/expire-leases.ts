import { openDatabase } from '@app/database/open-database';

/**
 * Runs out the leases of killed gateways at once, as they would run out LEASE_MS after the kills: every RUNNING agent
 * run, every STARTED journal entry and every resume claim still IN_PROGRESS of the database at `url` is then a dead
 * owner's, for a restarted gateway to take.
 */
export async function expireLeases(url: string): Promise<void> {
  const db = await openDatabase({ url });
  try {
    await db.query("UPDATE agent_run SET lease_until = 0 WHERE status = 'RUNNING'");
    await db.query("UPDATE tool_call_journal SET lease_expires_at = 0 WHERE state = 'STARTED'");
    await db.query("UPDATE resume_record SET created_at = 0 WHERE state = 'IN_PROGRESS'");
  } finally {
    await db.destroy();
  }
}

/**
 * The other way: every resume claim still IN_PROGRESS of the database at `url` counts as alive for an hour, as if the
 * resume holding it were still working on another instance, so a restarted gateway's recovery job leaves its saved
 * decision alone meanwhile ({@link expireLeases} lets it take the decision over).
 */
export async function holdResumeClaims(url: string): Promise<void> {
  const db = await openDatabase({ url });
  try {
    await db.query("UPDATE resume_record SET created_at = ? WHERE state = 'IN_PROGRESS'", [Date.now() + 3_600_000]);
  } finally {
    await db.destroy();
  }
}
