import { openDatabase } from '@app/database/open-database';

/** How many events the database at `url` still keeps in its outbox (written by no process yet, or not removed). */
export async function keptEventCount(url: string): Promise<number> {
  const db = await openDatabase({ url });
  try {
    const [row] = await db.query('SELECT COUNT(*) AS n FROM session_event_outbox');
    return Number(row.n);
  } finally {
    await db.destroy();
  }
}
