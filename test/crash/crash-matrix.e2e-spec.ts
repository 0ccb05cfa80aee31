import type { FaultPoint } from '@app/modules/loop-acting/acting/fault-injector';
import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import { GatewayExit, GatewayProcess, startGatewayProcess } from '@test/support/gateway-process';
import {
  act,
  expectStatus,
  openSession,
  resume,
  seedAgent,
  SeededAgent,
  ToolCall,
} from './support/gateway-runtime.seed';
import { CrashRemoteServer } from './support/crash-remote.server';
import { untilArmedGatewayDied } from './support/armed-request';

/*
 * Issue 4, "Prove it": the gateway runs as a real child process that SIGKILLs itself at one point of a call
 * (GATEWAY_FAULT_INJECTION), then a fresh process on the same database gets the same toolCallId.
 * One armed process per case, all on one database (one session each), then one restart for all cases.
 */

const LEASE_MS = 1000;
const TENANT = 'crash';
const SIDE_EFFECT_TOOL = 'ledger_write';
const READ_ONLY_TOOL = 'ledger_lookup';
/** Long enough that the kill (about 150 ms after the call is handed over) lands while the remote still works. */
const SLOW_CALL_MS = 2000;

type CaseKey = 'a' | 'b' | 'c' | 'd' | 'e' | 'readOnly';

/** A journal owner written by gateway instance `instanceId`: its id, then the token of one claim. */
const ownedBy = (instanceId: string) => expect.stringMatching(new RegExp(`^${instanceId}#`));

interface CrashCase {
  point: FaultPoint;
  tool: string;
  delayMs?: number;
  /** Filled in by the set-up. */
  gw?: GatewayProcess;
  sessionId?: string;
  call?: ToolCall;
  /** The act request sent to the armed process broke (the process died while answering). */
  requestBroke?: boolean;
  exit?: GatewayExit;
}

const newCases = (): Record<CaseKey, CrashCase> => ({
  a: { point: 'before-started', tool: SIDE_EFFECT_TOOL },
  b: { point: 'after-started', tool: SIDE_EFFECT_TOOL },
  c: { point: 'during-call', tool: SIDE_EFFECT_TOOL, delayMs: SLOW_CALL_MS },
  d: { point: 'after-call', tool: SIDE_EFFECT_TOOL },
  e: { point: 'after-completed', tool: SIDE_EFFECT_TOOL },
  readOnly: { point: 'during-call', tool: READ_ONLY_TOOL, delayMs: SLOW_CALL_MS },
});

const toolBody = (name: string, sideEffect: string, path: string) => ({
  name,
  description: `crash-matrix ${sideEffect} tool`,
  parameters: {
    type: 'object',
    properties: { ref: { type: 'string' }, delayMs: { type: 'integer' } },
    required: ['ref'],
  },
  serviceType: 'HTTP',
  httpMethod: 'POST',
  endpoint: path,
  sideEffect,
});

describeEachDialect(
  'crash matrix: SIGKILL at each point of a call, then the same toolCallId after a restart',
  (dialect) => {
    const cases = newCases();
    const entries = Object.entries(cases) as Array<[CaseKey, CrashCase]>;
    let db: TestDatabase;
    let remote: CrashRemoteServer;
    let seeded: SeededAgent;
    let restarted: GatewayProcess;

    const ref = (key: CaseKey) => `${dialect}-${key}`;
    const resubmit = (key: CaseKey, iteration = 2) =>
      act(restarted, seeded.runtime, cases[key].sessionId!, iteration, [cases[key].call!]);
    const journalOf = async (key: CaseKey) =>
      expectStatus(
        await restarted.call(
          'GET',
          `/api/v1/admin/sessions/${cases[key].sessionId}/journal`,
          undefined,
          restarted.admin,
        ),
        200,
        'journal',
      ).items;

    const startArmed = (key: CaseKey) =>
      startGatewayProcess({
        databaseUrl: db.url,
        instanceId: `crash-${key}`,
        env: {
          GATEWAY_FAULT_INJECTION: `${cases[key].point}:${cases[key].tool}${cases[key].point === 'during-call' ? ':600' : ''}`,
          JOURNAL_LEASE_MS: String(LEASE_MS),
        },
      });

    beforeAll(async () => {
      remote = await new CrashRemoteServer().start();
      db = await createTestDatabaseUrl(dialect);
      // The first process migrates the database alone; the others start together on the migrated schema.
      cases.a.gw = await startArmed('a');
      seeded = await seedAgent(cases.a.gw, TENANT, [
        toolBody(SIDE_EFFECT_TOOL, 'SIDE_EFFECT', remote.url('/ledger')),
        toolBody(READ_ONLY_TOOL, 'READ_ONLY', remote.url('/lookup')),
      ]);
      await Promise.all(entries.filter(([key]) => key !== 'a').map(async ([key, c]) => (c.gw = await startArmed(key))));
      for (const [key, c] of entries) {
        c.sessionId = await openSession(cases.a.gw, seeded);
        c.call = {
          id: `call-${key}`,
          name: c.tool,
          arguments: { ref: ref(key), ...(c.delayMs ? { delayMs: c.delayMs } : {}) },
        };
      }
      await Promise.all(
        entries.map(async ([, c]) => {
          Object.assign(
            c,
            await untilArmedGatewayDied(c.gw!, () => act(c.gw!, seeded.runtime, c.sessionId!, 1, [c.call!])),
          );
        }),
      );
      restarted = await startGatewayProcess({
        databaseUrl: db.url,
        instanceId: `restarted-${dialect}`,
        env: { JOURNAL_LEASE_MS: String(LEASE_MS) },
      });
      // Resubmit only once every lease the dead owners held has run out.
      const journals = await Promise.all(entries.map(([key]) => journalOf(key)));
      const leaseEnds = journals
        .flat()
        .filter((row) => row.state === 'STARTED')
        .map((row) => Date.parse(row.leaseExpiresAt));
      const wait = Math.max(0, ...leaseEnds) + 50 - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }, 120_000);

    afterAll(async () => {
      await Promise.all([restarted?.kill(), ...entries.map(([, c]) => c.gw?.kill())]);
      await remote?.stop();
      await db?.drop();
    });

    it('each armed gateway killed itself at its point while answering the act request', () => {
      for (const [key, c] of entries) {
        expect({ key, broke: c.requestBroke, signal: c.exit?.signal }).toEqual({ key, broke: true, signal: 'SIGKILL' });
      }
      // What reached the remote before the kills: nothing before the call, one request from the call on.
      expect(entries.map(([key]) => [key, remote.hits(ref(key))])).toEqual([
        ['a', 0],
        ['b', 0],
        ['c', 1],
        ['d', 1],
        ['e', 1],
        ['readOnly', 1],
      ]);
      // The kill during the call landed while the remote was still working on it.
      expect(remote.requestsFor(ref('c'))[0].abortedAt).toBeDefined();
    });

    it('(a) killed before STARTED: nothing was journaled; the resubmission runs the call once', async () => {
      expect(await journalOf('a')).toEqual([]);
      const res = await resubmit('a');
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('COMPLETED');
      expect(res.body.results[0]).toMatchObject({
        toolCallId: 'call-a',
        status: 'COMPLETED',
        reused: false,
        isError: false,
      });
      expect(JSON.parse(res.body.results[0].content)).toEqual({ done: ref('a'), n: 1 });
      expect(remote.hits(ref('a'))).toBe(1);
    });

    it('(b) killed after STARTED, before the call: UNKNOWN_OUTCOME, nothing sent; RETRY runs it exactly once', async () => {
      expect(await journalOf('b')).toEqual([
        expect.objectContaining({ toolCallId: 'call-b', state: 'STARTED', owner: ownedBy('crash-b') }),
      ]);
      const res = await resubmit('b');
      expectUnknownOutcome(res, 'call-b');
      expect(remote.hits(ref('b'))).toBe(0);

      const retried = await resume(restarted, seeded.runtime, cases.b.sessionId!, {
        clientMessageId: 'retry-b',
        toolCallId: 'call-b',
        decision: 'RETRY',
      });
      expect(retried.status).toBe(200);
      expect(retried.body.results[0]).toMatchObject({ toolCallId: 'call-b', status: 'COMPLETED', isError: false });
      expect(remote.hits(ref('b'))).toBe(1);

      const again = await resubmit('b', 3);
      expect(again.body.results[0]).toMatchObject({
        status: 'COMPLETED',
        reused: true,
        content: retried.body.results[0].content,
      });
      expect(remote.hits(ref('b'))).toBe(1);
    });

    it("(c) killed during the call: UNKNOWN_OUTCOME, not sent again; MARK_DONE records the reviewer's result", async () => {
      expect(await journalOf('c')).toEqual([expect.objectContaining({ state: 'STARTED', owner: ownedBy('crash-c') })]);
      expectUnknownOutcome(await resubmit('c'), 'call-c');
      expect(remote.hits(ref('c'))).toBe(1);

      const done = await resume(restarted, seeded.runtime, cases.c.sessionId!, {
        clientMessageId: 'done-c',
        decision: 'MARK_DONE',
        message: 'ledger entry confirmed by ops',
      });
      expect(done.status).toBe(200);
      expect(done.body.results[0]).toMatchObject({
        toolCallId: 'call-c',
        status: 'COMPLETED',
        isError: false,
        content: 'ledger entry confirmed by ops',
      });
      const again = await resubmit('c', 3);
      expect(again.body.results[0]).toMatchObject({
        status: 'COMPLETED',
        reused: true,
        content: 'ledger entry confirmed by ops',
      });
      expect(remote.hits(ref('c'))).toBe(1);
    });

    it('(d) killed after the call, before COMPLETED: UNKNOWN_OUTCOME, not sent again; REJECT stores a rejection', async () => {
      expect(await journalOf('d')).toEqual([expect.objectContaining({ state: 'STARTED', owner: ownedBy('crash-d') })]);
      expectUnknownOutcome(await resubmit('d'), 'call-d');
      expect(remote.hits(ref('d'))).toBe(1);

      const rejected = await resume(restarted, seeded.runtime, cases.d.sessionId!, {
        clientMessageId: 'reject-d',
        decision: 'REJECT',
        message: 'check the ledger by hand',
      });
      expect(rejected.body.results[0]).toMatchObject({ toolCallId: 'call-d', status: 'REJECTED', isError: true });
      expect(rejected.body.results[0].content).toContain('check the ledger by hand');
      expect(remote.hits(ref('d'))).toBe(1);
    });

    it('(e) killed after COMPLETED: the stored result comes back, reused, without a call', async () => {
      expect(await journalOf('e')).toEqual([
        expect.objectContaining({ state: 'COMPLETED', owner: ownedBy('crash-e') }),
      ]);
      const res = await resubmit('e');
      expect(res.body.status).toBe('COMPLETED');
      expect(res.body.results[0]).toMatchObject({
        toolCallId: 'call-e',
        status: 'COMPLETED',
        reused: true,
        isError: false,
      });
      expect(JSON.parse(res.body.results[0].content)).toEqual({ done: ref('e'), n: 1 });
      expect(remote.hits(ref('e'))).toBe(1);
    });

    it('a READ_ONLY call killed during the call simply runs again and completes', async () => {
      expect(await journalOf('readOnly')).toEqual([
        expect.objectContaining({ state: 'STARTED', owner: ownedBy('crash-readOnly') }),
      ]);
      const res = await resubmit('readOnly');
      expect(res.body.status).toBe('COMPLETED');
      expect(res.body.results[0]).toMatchObject({
        toolCallId: 'call-readOnly',
        status: 'COMPLETED',
        reused: false,
        isError: false,
      });
      expect(JSON.parse(res.body.results[0].content)).toEqual({ done: ref('readOnly'), n: 2 });
      expect(await journalOf('readOnly')).toEqual([
        expect.objectContaining({ state: 'COMPLETED', owner: ownedBy(`restarted-${dialect}`) }),
      ]);
    });

    it('no side-effecting call reached the remote more than once', () => {
      for (const key of ['a', 'b', 'c', 'd', 'e'] as const) expect(remote.hits(ref(key))).toBeLessThanOrEqual(1);
    });
  },
);

function expectUnknownOutcome(res: { status: number; body: any }, toolCallId: string): void {
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('INTERRUPTED');
  expect(res.body.hitlRequest).toMatchObject({
    requestType: 'UNKNOWN_OUTCOME',
    toolName: SIDE_EFFECT_TOOL,
    toolCallId,
  });
  expect(res.body.results[0]).toMatchObject({ toolCallId, status: 'PENDING_APPROVAL' });
}
