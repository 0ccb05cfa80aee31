import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { once } from 'node:events';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { SessionEventsStore } from './session-events.store';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { PerKeyPlaces, type Place } from '@app/common/per-key-places';
import { withAnySignal } from '@app/common/abort-race';

const PAGE = 100;
/** A comment line this often keeps proxies from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;
/**
 * An open stream asks whether its caller may still read it at each poll, at most this often: with the default poll a
 * key deleted on this instance loses its stream within a second, on another within the key cache's 5 s more (the
 * answer is mostly that cache's).
 */
const ACCESS_RECHECK_MS = 1_000;
/**
 * A client that has taken nothing of a full buffer for this long is cut off: it holds one of its tenant's places and a
 * connection, and would hold them for ever (a reconnect with Last-Event-ID gets what it missed).
 */
export const STALLED_CLIENT_MS = 60_000;
/**
 * How long after its session settled (closed, and its last running call ended) a stream still looks for events,
 * then ends: those the close or that call wrote (recorded behind it, or written by another instance) reach the client
 * first.
 */
export const CLOSED_SESSION_GRACE_MS = 2_000;

/**
 * Server-Sent Events of one session: every event after `after` as `id: <seq>` + `data: {seq, type, at, data}`
 * (no `event:` field, so an EventSource's `onmessage` sees them all), then new ones as they come: woken at once by
 * appends in this process, and by polling every EVENTS_STREAM_POLL_MS for those of other instances. A reconnecting
 * client sends `Last-Event-ID` and gets what followed. Ends when the client goes, or when `mayStillRead` says no
 * (asked at each poll, at most every ACCESS_RECHECK_MS: a key deleted while its stream is open stops reading; the
 * reconnect gets a 401), also while it waits for a client that reads slowly; a client that takes nothing for
 * STALLED_CLIENT_MS is cut off. A closed session's stream ends once every event is sent, CLOSED_SESSION_GRACE_MS after
 * the session settled (closed, with no call of it still running; asked with the key); a reconnect with nothing left to read is answered 204 (see {@link isOver}), which
 * tells an EventSource to stop reconnecting.
 */
@Injectable()
export class SessionEventsStreamer implements BeforeApplicationShutdown {
  private readonly pollMs: number;
  private readonly maxPerTenant: number;
  /** Open streams end when the application shuts down (they would hold the HTTP server open). */
  private readonly closing = new AbortController();
  /** Streams open on this instance, per tenant (see {@link reserve}). */
  private readonly openPerTenant = new PerKeyPlaces();

  constructor(
    private readonly store: SessionEventsStore,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.pollMs = config.eventsStreamPollMs;
    this.maxPerTenant = config.eventsStreamMaxPerTenant;
  }

  /**
   * Takes one of the tenant's EVENTS_STREAM_MAX_PER_TENANT places on this instance (each open stream reads the
   * database every EVENTS_STREAM_POLL_MS), or refuses with 429 TOO_MANY_REQUESTS; the caller releases it when its
   * stream ends.
   */
  reserve(tenantId: string): Place {
    const place = this.openPerTenant.take(tenantId, this.maxPerTenant);
    if (!place)
      throw new DomainError(
        CommonErrorCode.TOO_MANY_REQUESTS,
        `Tenant ${tenantId} already has ${this.openPerTenant.held(tenantId)} event streams open on this gateway instance (EVENTS_STREAM_MAX_PER_TENANT); close one, or page GET /api/v1/sessions/{id}/events instead.`,
      );
    return place;
  }

  /**
   * Whether a stream of the session after `after` has nothing more to send: its session settled (at `settledAt`:
   * closed, no call of it running; 0 when it is gone) CLOSED_SESSION_GRACE_MS ago or more, and no event follows
   * `after`.
   */
  async isOver(sessionId: string, after: number, settledAt: number | null): Promise<boolean> {
    if (settledAt === null || Date.now() - settledAt < CLOSED_SESSION_GRACE_MS) return false;
    return (await this.store.page(sessionId, after, 1)).items.length === 0;
  }

  beforeApplicationShutdown(): void {
    this.closing.abort();
  }

  async stream(
    sessionId: string,
    after: number,
    res: ServerResponse,
    clientSignal: AbortSignal,
    mayStillRead: () => Promise<boolean>,
    sessionSettledAt: () => Promise<number | null>,
  ): Promise<void> {
    return withAnySignal([clientSignal, this.closing.signal], (signal) =>
      this.streamUntil(signal, sessionId, after, res, mayStillRead, sessionSettledAt),
    );
  }

  /** The stream's work until `signal` aborts (the client went, or this instance closes). */
  private async streamUntil(
    signal: AbortSignal,
    sessionId: string,
    after: number,
    res: ServerResponse,
    mayStillRead: () => Promise<boolean>,
    sessionSettledAt: () => Promise<number | null>,
  ): Promise<void> {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write(`retry: ${Math.max(this.pollMs, 1000)}\n\n`);
    let wake: (() => void) | null = null;
    let woken = false;
    const unsubscribe = this.store.onAppended(sessionId, () => {
      woken = true;
      wake?.();
    });
    const onAbort = () => wake?.();
    signal.addEventListener('abort', onAbort);
    let cursor = after;
    let quietSince = Date.now();
    let checkedAt = Date.now();
    /** The client stopped taking what was written (or may no longer read it while it did not): drop the connection. */
    let cut = false;
    let settledAt: number | null = null;
    try {
      settledAt = await sessionSettledAt();
      while (!signal.aborted) {
        if (Date.now() - checkedAt >= ACCESS_RECHECK_MS) {
          if (!(await mayStillRead())) break;
          settledAt ??= await sessionSettledAt();
          checkedAt = Date.now();
        }
        woken = false;
        const page = await this.store.page(sessionId, cursor, PAGE);
        let revoked = false;
        for (const event of page.items) {
          if (!res.write(`id: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n`)) {
            cut = !(await drained(res, signal, mayStillRead)) && !signal.aborted;
            if (cut || signal.aborted) break;
          }
          // Also within a page, which a client that reads slowly may take long to read.
          if (Date.now() - checkedAt >= ACCESS_RECHECK_MS) {
            if ((revoked = !(await mayStillRead()))) break;
            checkedAt = Date.now();
          }
        }
        if (cut || revoked) break;
        cursor = page.nextAfter;
        if (page.items.length > 0) quietSince = Date.now();
        if (page.items.length === PAGE || woken) continue;
        if (settledAt !== null && Date.now() - settledAt >= CLOSED_SESSION_GRACE_MS) break;
        if (Date.now() - quietSince >= HEARTBEAT_MS) {
          res.write(': keep-alive\n\n');
          quietSince = Date.now();
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.pollMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
    } finally {
      unsubscribe();
      signal.removeEventListener('abort', onAbort);
      // An end() would wait for the client to take the bytes still buffered, which it does not.
      if (cut) res.destroy();
      else res.end();
    }
  }
}

/**
 * Waits until the client takes what fills `res`'s buffer: true when it did; false when the stream must end instead
 * (the client took nothing for STALLED_CLIENT_MS, or `mayStillRead`, asked every ACCESS_RECHECK_MS meanwhile, says no)
 * or the client went.
 */
async function drained(
  res: ServerResponse,
  signal: AbortSignal,
  mayStillRead: () => Promise<boolean>,
): Promise<boolean> {
  const stalledSince = Date.now();
  while (!signal.aborted) {
    const recheck = new AbortController();
    const timer = setTimeout(() => recheck.abort(), ACCESS_RECHECK_MS);
    const wait = AbortSignal.any([signal, recheck.signal]);
    const took = await once(res, 'drain', { signal: wait }).then(
      () => true,
      () => false,
    );
    clearTimeout(timer);
    if (took) return true;
    if (signal.aborted || Date.now() - stalledSince >= STALLED_CLIENT_MS || !(await mayStillRead())) return false;
  }
  return false;
}
