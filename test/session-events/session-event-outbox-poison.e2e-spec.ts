import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { gatewayForSuite, type TestGateway } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import { secondEventsStore } from '@test/support/second-events-store';
import { GATEWAY_CONFIG, type GatewayConfig } from '@app/config/gateway-config';
import { GatewayMetrics } from '@app/modules/metrics/gateway-metrics.service';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import { SessionEventOutboxRepository } from '@app/modules/session-events/session-event-outbox.repository';
import {
  SESSION_EVENT_OUTBOX_MAX_ATTEMPTS as MAX_ATTEMPTS,
  SessionEventOutboxRecovery,
} from '@app/modules/session-events/session-event-outbox.recovery';
import type { SessionEventType } from '@app/modules/session-events/session-event.types';

/*
 * Rows of session_event_outbox that can never be written: one whose payload no longer parses, one the database
 * refuses (a trigger stands for any constraint). The rounds are run here with explicit times; the gateway's own round
 * waits an hour (JOURNAL_LEASE_MS), so it never runs during the suite.
 */

const LEASE_MS = 3_600_000;
const SECRET = 'sk-live-payload-secret';

describeEachDialect('session event outbox: a row that can never be written', (dialect) => {
  const suite = gatewayForSuite(dialect, { JOURNAL_LEASE_MS: String(LEASE_MS) });
  let gw: TestGateway;
  let ds: DataSource;
  let outbox: SessionEventOutboxRepository;
  let recovery: SessionEventOutboxRecovery;
  let keptAt: number;
  let n = 0;

  beforeAll(() => {
    gw = suite.gw;
    ds = gw.app.get(DataSource);
    outbox = gw.app.get(SessionEventOutboxRepository);
    recovery = gw.app.get(SessionEventOutboxRecovery);
    expect(gw.app.get<GatewayConfig>(GATEWAY_CONFIG).journalLeaseMs).toBe(LEASE_MS);
    keptAt = Date.now() - 2 * LEASE_MS;
  });

  afterEach(() => jest.restoreAllMocks());

  /** Keeps an event as a transaction of a process that died would have (kept long enough ago to be a round's). */
  async function keep(sessionId: string, type: SessionEventType, data: Record<string, unknown>): Promise<string> {
    const id = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    await ds.transaction((m) =>
      outbox.keep({ id, tenantId: 't-poison', sessionId, type, at: keptAt + n, data, onceKey: `outbox:${id}` }, m),
    );
    return id;
  }

  async function rowOf(id: string): Promise<{ attempts: number; retryAt: number; givenUpAt: number | null }> {
    const [row] = await ds.query('SELECT attempts, retry_at, given_up_at FROM session_event_outbox WHERE id = ?', [id]);
    expect(row).toBeDefined();
    return {
      attempts: Number(row.attempts),
      retryAt: Number(row.retry_at),
      givenUpAt: row.given_up_at === null ? null : Number(row.given_up_at),
    };
  }

  async function eventsOf(sessionId: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
    const items = (await gw.app.get(SessionEventsStore).page(sessionId, 0, 100)).items;
    return items.map(({ type, data }) => ({ type, data }));
  }

  /** Runs rounds at each row's next retry until the round gives it up; returns the error lines logged meanwhile. */
  async function roundsUntilGivenUp(id: string, from: number): Promise<string[]> {
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    let now = from;
    for (let i = 0; i < MAX_ATTEMPTS + 2; i++) {
      const row = await rowOf(id);
      if (row.givenUpAt !== null) break;
      now = Math.max(now, row.retryAt);
      await recovery.writeAbandoned(now);
    }
    return errors.mock.calls.map((c) => String(c[0]));
  }

  it('gives up on a row whose payload no longer parses: one error naming it, counted, kept, never tried again', async () => {
    const poison = await keep('unparsable-session', 'message', { text: SECRET });
    await ds.query(`UPDATE session_event_outbox SET data = '{"text": "${SECRET}' WHERE id = ?`, [poison]);
    const behind = await keep('unparsable-session', 'run.finished', { n: 2 });
    const other = await keep('neighbour-session', 'message', { n: 3 });

    // The first round writes the rows behind it, of its session and of another, and counts one failed attempt.
    const now = Date.now();
    await recovery.writeAbandoned(now);
    expect(await eventsOf('unparsable-session')).toEqual([{ type: 'run.finished', data: { n: 2 } }]);
    expect(await eventsOf('neighbour-session')).toEqual([{ type: 'message', data: { n: 3 } }]);
    expect(await rowOf(poison)).toMatchObject({ attempts: 1, givenUpAt: null });
    expect((await rowOf(poison)).retryAt).toBeGreaterThanOrEqual(now + LEASE_MS);
    expect(await ds.query('SELECT id FROM session_event_outbox WHERE id IN (?, ?)', [behind, other])).toEqual([]);

    const errors = await roundsUntilGivenUp(poison, now);
    expect(await rowOf(poison)).toMatchObject({ attempts: MAX_ATTEMPTS, givenUpAt: expect.any(Number) });
    const about = errors.filter((line) => line.includes(poison));
    expect(about).toHaveLength(1);
    expect(about[0]).toContain('unparsable-session');
    expect(about[0]).toContain('message');
    expect(errors.join('\n')).not.toContain(SECRET);

    // Never tried again, however late the round: no attempt counted, no second error line.
    jest.restoreAllMocks();
    const later = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    await recovery.writeAbandoned(now + 1_000 * LEASE_MS);
    expect(await rowOf(poison)).toMatchObject({ attempts: MAX_ATTEMPTS });
    expect(later).not.toHaveBeenCalled();
    expect(await gw.app.get(GatewayMetrics).scrape()).toContain(
      'gateway_session_event_outbox_given_up_total{type="message"} 1',
    );
  });

  it('gives up on a row the database refuses, while the same session’s later events are written', async () => {
    await refuseArtifactEventsOf('refused-session');
    try {
      const refused = await keep('refused-session', 'artifact.published', { path: SECRET });
      const later = await keep('refused-session', 'message', { n: 2 });
      const now = Date.now();
      const warns = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      expect(await recovery.writeAbandoned(now)).toBe(1);
      expect(await eventsOf('refused-session')).toEqual([{ type: 'message', data: { n: 2 } }]);
      expect(await ds.query('SELECT id FROM session_event_outbox WHERE id = ?', [later])).toEqual([]);
      expect(warns.mock.calls.map((c) => String(c[0])).join('\n')).not.toContain(SECRET);

      const errors = await roundsUntilGivenUp(refused, now);
      expect(errors.filter((line) => line.includes(refused))).toHaveLength(1);
      expect(await rowOf(refused)).toMatchObject({ attempts: MAX_ATTEMPTS, givenUpAt: expect.any(Number) });
      expect(await eventsOf('refused-session')).toEqual([{ type: 'message', data: { n: 2 } }]);
    } finally {
      await ds.query('DROP TRIGGER refuse_artifact_events');
    }
  });

  it('counts one attempt per wait, however often rounds run meanwhile (other instances, a database come back)', async () => {
    const poison = await keep('busy-session', 'message', { n: 1 });
    await ds.query(`UPDATE session_event_outbox SET data = 'not json' WHERE id = ?`, [poison]);
    const otherInstance = new SessionEventOutboxRecovery(
      outbox,
      secondEventsStore(gw.app),
      gw.app.get(GatewayMetrics),
      gw.app.get(GATEWAY_CONFIG),
    );
    const now = Date.now();
    await Promise.all([recovery.writeAbandoned(now), otherInstance.writeAbandoned(now)]);
    await recovery.writeAbandoned(now + 1);
    await otherInstance.writeAbandoned(now + LEASE_MS - 1);
    expect(await rowOf(poison)).toMatchObject({ attempts: 1, retryAt: now + LEASE_MS });

    // The next wait is twice as long.
    await Promise.all([recovery.writeAbandoned(now + LEASE_MS), otherInstance.writeAbandoned(now + LEASE_MS)]);
    expect(await rowOf(poison)).toMatchObject({ attempts: 2, retryAt: now + 3 * LEASE_MS });
    await recovery.writeAbandoned(now + 3 * LEASE_MS - 1);
    expect((await rowOf(poison)).attempts).toBe(2);
  });

  it('a round full of failing rows leaves the rows behind them to the next round, ahead of the retries', async () => {
    const failing: string[] = [];
    for (let i = 0; i < 101; i++) failing.push(await keep('crowded-session', 'todo.updated', { i }));
    await ds.query(
      `UPDATE session_event_outbox SET data = 'not json' WHERE session_id = 'crowded-session' AND type = 'todo.updated'`,
    );
    await keep('crowded-session', 'message', { n: 'behind' });
    const now = Date.now();
    expect(await recovery.writeAbandoned(now)).toBe(0);
    expect(await recovery.writeAbandoned(now + LEASE_MS)).toBe(1);
    expect(await eventsOf('crowded-session')).toEqual([{ type: 'message', data: { n: 'behind' } }]);
    await ds.query("DELETE FROM session_event_outbox WHERE session_id = 'crowded-session'");
  });

  // A lock wait timed out: what a busy MariaDB answers a healthy row (a trigger stands for the lock). MariaDB only: a
  // SQLite trigger cannot answer SQLITE_BUSY, and a busy SQLite file refuses the count of the attempt as well.
  if (dialect === 'mysql')
    it('never gives up a healthy row while the database only answers it with a lock wait timeout: written once it recovers', async () => {
      await ds.query(
        `CREATE TRIGGER time_out_locked_events BEFORE INSERT ON session_event FOR EACH ROW
           BEGIN IF NEW.session_id = 'locked-session' THEN
             SIGNAL SQLSTATE 'HY000' SET MYSQL_ERRNO = 1205, MESSAGE_TEXT = 'Lock wait timeout exceeded'; END IF; END`,
      );
      const healthy = await keep('locked-session', 'message', { n: 1 });
      const now = Date.now();
      try {
        jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
        await roundsUntilGivenUp(healthy, now);
        expect(await rowOf(healthy)).toMatchObject({ attempts: 0, givenUpAt: null });
      } finally {
        await ds.query('DROP TRIGGER time_out_locked_events');
      }
      await recovery.writeAbandoned((await rowOf(healthy)).retryAt);
      expect(await eventsOf('locked-session')).toEqual([{ type: 'message', data: { n: 1 } }]);
    });

  it('logs what refused an event by its code only: a driver message may quote the data it was given', async () => {
    // The trigger's message quotes the event's data, as MariaDB's "Incorrect string value" or "Duplicate entry" do.
    await refuseArtifactEventsOf('quoting-session', `refused: ${SECRET}`);
    try {
      const warns = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      const store = gw.app.get(SessionEventsStore);
      await store.append({
        tenantId: 't-poison',
        sessionId: 'quoting-session',
        type: 'artifact.published',
        data: { path: SECRET },
      });
      const lines = warns.mock.calls.map((c) => String(c[0])).filter((l) => l.includes('quoting-session'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/was not recorded: \S*(SQLITE_CONSTRAINT|ER_SIGNAL_EXCEPTION|QueryFailedError)/);
      expect(lines[0]).not.toContain(SECRET);
    } finally {
      await ds.query('DROP TRIGGER refuse_artifact_events');
    }
  });

  /** A trigger refusing `artifact.published` events of one session, as a constraint refuses a row. */
  async function refuseArtifactEventsOf(sessionId: string, message = 'refused by the test'): Promise<void> {
    await ds.query(
      dialect === 'sqlite'
        ? `CREATE TRIGGER refuse_artifact_events BEFORE INSERT ON session_event
             WHEN NEW.session_id = '${sessionId}' AND NEW.type = 'artifact.published'
             BEGIN SELECT RAISE(ABORT, '${message}'); END`
        : `CREATE TRIGGER refuse_artifact_events BEFORE INSERT ON session_event FOR EACH ROW
             BEGIN IF NEW.session_id = '${sessionId}' AND NEW.type = 'artifact.published' THEN
               SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '${message}'; END IF; END`,
    );
  }
});
