import type { GatewayProcess } from '@test/support/gateway-process';
import { waitFor } from '@test/support/wait-for';
import { expectStatus, type RuntimeAuth } from './gateway-runtime.seed';

/** One event as GET /sessions/{id}/events answers it. */
export interface ReadEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

/** Every event of the session, oldest first. */
export async function readEvents(gw: GatewayProcess, auth: RuntimeAuth, sessionId: string): Promise<ReadEvent[]> {
  const res = await gw.call('GET', `/api/v1/sessions/${sessionId}/events?after=0&limit=1000`, undefined, auth);
  return expectStatus(res, 200, 'read events').items;
}

/**
 * The session's events once one of type `type` is among them (a restarted gateway writes what a killed one left
 * kept after JOURNAL_LEASE_MS); fails naming what was there when none came in `timeoutMs`.
 */
export function eventsOnce(
  gw: GatewayProcess,
  auth: RuntimeAuth,
  sessionId: string,
  type: string,
  timeoutMs = 30_000,
): Promise<ReadEvent[]> {
  return waitFor(
    async () => {
      const events = await readEvents(gw, auth, sessionId);
      if (events.some((e) => e.type === type)) return events;
      throw new Error(`the session has ${events.map((e) => e.type).join(', ') || 'no events'}`);
    },
    { timeoutMs, intervalMs: 200, description: `a ${type} event of session ${sessionId}` },
  );
}
