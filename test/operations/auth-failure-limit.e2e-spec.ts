import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { HotSql } from '@app/database/hot-sql';
import { bearer, createKey, gatewayForSuite, TEST_ADMIN_KEY, type TestGateway } from '@test/support/gateway-test-app';
import { recordStatements, type StatementRecording } from '@test/support/statement-counter';
import { waitFor } from '@test/support/wait-for';
import { hash } from 'node:crypto';
import type { LRUCache } from 'lru-cache';
import type { Repository } from 'typeorm';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiKeysService } from '@app/modules/api-keys/api-keys.service';
import type { ApiKeyEntity } from '@app/modules/api-keys/api-key.entity';

const PER_MINUTE = 4;

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: { error?: { code: string; message: string; details: unknown } };
}

/**
 * One request to the gateway (listening on 127.0.0.1) from the loopback address `from` (127.0.0.2 and up: each test
 * its own client address, apart from supertest's 127.0.0.1); `body` is sent as it is.
 */
function send(
  gw: TestGateway,
  from: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  const { port } = gw.app.getHttpServer().address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, localAddress: from, method, path, headers: { ...headers, connection: 'close' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'],
            body: text ? (JSON.parse(text) as Answer['body']) : {},
          }),
        );
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.setHeader('content-type', 'application/json');
    req.end(body);
  });
}

/** The statements that looked a key up (api_key): what a request with an unknown key costs the database. */
const keyLookups = (recording: StatementRecording) => recording.statements.filter((sql) => /api_key/i.test(sql));

/** AUTH_FAILURES_PER_MINUTE: failed authentications counted per client address, without reading the database past them. */
describe('AUTH_FAILURES_PER_MINUTE', () => {
  const suite = gatewayForSuite('sqlite', { AUTH_FAILURES_PER_MINUTE: String(PER_MINUTE) });
  let recording: StatementRecording;

  beforeAll(async () => {
    await suite.gw.app.listen(0, '127.0.0.1');
    // One recording for the suite: a statement prepared while it records is recorded each time it runs again.
    recording = recordStatements(suite.gw.app.get(DataSource), suite.gw.app.get(HotSql));
  });
  afterAll(() => recording?.stop());

  /** PER_MINUTE failed authentications from `from`, each kind once or more, half of them with a body. */
  async function failFrom(from: string): Promise<void> {
    const failures: Array<() => Promise<Answer>> = [
      () => send(suite.gw, from, 'GET', '/api/v1/sessions/no-such-session'),
      () => send(suite.gw, from, 'GET', '/api/v1/sessions/no-such-session', { authorization: 'Basic bm90OmEta2V5' }),
      () => send(suite.gw, from, 'POST', '/api/v1/sessions', bearer(`gwk_made-up-${from}-1`), '{}'),
      () => send(suite.gw, from, 'POST', '/api/v1/sessions', bearer(`gwk_made-up-${from}-2`), '{}'),
    ];
    expect(failures).toHaveLength(PER_MINUTE);
    for (const fail of failures) {
      const answer = await fail();
      expect(answer.status).toBe(401);
      expect(answer.body.error?.code).toBe('UNAUTHENTICATED');
    }
  }

  it('answers an address past the limit 429 with Retry-After, looking no key up, and lets its real keys through', async () => {
    const gw = suite.gw;
    const runtime = await createKey(gw, 'acme');
    const address = '127.0.0.2';
    // A client behind the same address used its key a moment ago: this instance knows it.
    expect((await send(gw, address, 'GET', '/api/v1/sessions/no-such-session', runtime)).status).toBe(404);
    // A request with a body is refused (and counted) before its body is read, once: the guard does not count it again.
    await failFrom(address);

    recording.clear();
    const refused = await send(gw, address, 'GET', '/api/v1/sessions/no-such-session', bearer('gwk_made-up-3'));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: { code: 'TOO_MANY_REQUESTS', message: expect.stringMatching(/Retry-After/), details: {} },
    });
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    // A body is not read either: one that does not parse gets the 429, not a 400.
    const unread = await send(gw, address, 'POST', '/api/v1/sessions', bearer('gwk_made-up-4'), '{"not json');
    expect(unread.status).toBe(429);
    expect(Number(unread.retryAfter)).toBeGreaterThan(0);
    expect((await send(gw, address, 'GET', '/api/v1/sessions/no-such-session')).status).toBe(429);
    expect(keyLookups(recording)).toEqual([]);

    // Real keys this instance knows still pass from the refused address: the runtime's and the platform key.
    expect((await send(gw, address, 'GET', '/api/v1/sessions/no-such-session', runtime)).status).toBe(404);
    expect((await send(gw, address, 'POST', '/api/v1/sessions', runtime, '{}')).status).toBe(400);
    expect((await send(gw, address, 'GET', '/api/v1/admin/tools', bearer(TEST_ADMIN_KEY))).status).toBe(200);

    // Another address is not refused: its made-up key is looked up and answered 401.
    recording.clear();
    const other = await send(gw, '127.0.0.3', 'GET', '/api/v1/sessions/no-such-session', bearer('gwk_made-up-5'));
    expect(other.status).toBe(401);
    expect(keyLookups(recording)).toHaveLength(1);

    const metrics = await gw.http.get('/metrics').expect(200);
    expect(metrics.text).toMatch(/^gateway_auth_failure_refusals_total 3$/m);
  });

  it('lets a real key through from a refused address while its lookup is refreshed (its 5 s over)', async () => {
    const gw = suite.gw;
    const runtime = await createKey(gw, 'acme');
    const address = '127.0.0.5';
    expect((await send(gw, address, 'GET', '/api/v1/sessions/no-such-session', runtime)).status).toBe(404);
    await failFrom(address);
    // The key's 5 s in the resolve cache are over (made so, not waited for): its next request looks it up again.
    const found: unknown = gw.app.get(ApiKeysService);
    const service = found as { cache: LRUCache<string, AuthContext>; keys: Repository<ApiKeyEntity> };
    const keyHash = hash('sha256', runtime.Authorization.slice('Bearer '.length), 'hex');
    const held = service.cache.peek(keyHash);
    expect(held).toMatchObject({ tenantId: 'acme' });
    service.cache.set(keyHash, held, { start: performance.now() - 60_000 });
    expect(service.cache.getRemainingTTL(keyHash)).toBeLessThan(0);
    // Its lookup holds until the key's next request is answered, or has reached the resolver (where it shares that
    // lookup).
    const resolves = jest.spyOn(gw.app.get(ApiKeysService), 'resolve');
    const findOne = service.keys.findOne.bind(service.keys);
    let lookups = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const spy = jest.spyOn(service.keys, 'findOne').mockImplementation(async (options) => {
      const row = await findOne(options);
      lookups++;
      await released;
      return row;
    });
    try {
      const refreshing = send(gw, address, 'GET', '/api/v1/sessions/no-such-session', runtime);
      await waitFor(() => lookups === 1, { description: 'the lookup of the key whose 5 s are over' });
      let answeredMeanwhile: Answer | undefined;
      const meanwhile = send(gw, address, 'GET', '/api/v1/sessions/no-such-session', runtime).then(
        (answer) => (answeredMeanwhile = answer),
      );
      await waitFor(() => answeredMeanwhile !== undefined || resolves.mock.calls.length === 2, {
        description: "the key's next request answered, or looking the key up",
      });
      release();
      expect((await meanwhile).status).toBe(404);
      expect((await refreshing).status).toBe(404);
    } finally {
      release();
      spy.mockRestore();
      resolves.mockRestore();
    }
  });

  it('refuses a request whose made-up key was still being looked up when its address reached the limit, body unread', async () => {
    const gw = suite.gw;
    const address = '127.0.0.6';
    const waitingKey = 'gwk_made-up-waiting';
    const waitingHash = hash('sha256', waitingKey, 'hex');
    // The lookup of that one key holds until released; the other keys' lookups run as they do.
    const found: unknown = gw.app.get(ApiKeysService);
    const service = found as { keys: Repository<ApiKeyEntity> };
    const findOne = service.keys.findOne.bind(service.keys);
    let waiting = false;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const spy = jest.spyOn(service.keys, 'findOne').mockImplementation(async (options) => {
      const row = await findOne(options);
      if ((options.where as { keyHash?: string }).keyHash === waitingHash) {
        waiting = true;
        await released;
      }
      return row;
    });
    try {
      // A body that does not parse: read, it would be a 400.
      const waiter = send(gw, address, 'POST', '/api/v1/sessions', bearer(waitingKey), '{"not json');
      await waitFor(() => waiting, { description: 'the lookup of the waiting key' });
      await failFrom(address);
      release();
      const answer = await waiter;
      expect(answer.status).toBe(429);
      expect(answer.body.error).toEqual({
        code: 'TOO_MANY_REQUESTS',
        message: expect.stringMatching(/AUTH_FAILURES_PER_MINUTE/),
        details: {},
      });
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    } finally {
      release();
      spy.mockRestore();
    }
  });

  it('lets the address try again once the minute of its first failure is over', async () => {
    const gw = suite.gw;
    const address = '127.0.0.4';
    await failFrom(address);
    expect((await send(gw, address, 'GET', '/api/v1/sessions/no-such-session', bearer('gwk_later-1'))).status).toBe(
      429,
    );
    // A minute on (only the wall clock moves; timers run as they do).
    jest.useFakeTimers({
      now: Date.now() + 61_000,
      doNotFake: [
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'requestAnimationFrame',
        'cancelAnimationFrame',
        'requestIdleCallback',
        'cancelIdleCallback',
        'setImmediate',
        'clearImmediate',
        'setInterval',
        'clearInterval',
        'setTimeout',
        'clearTimeout',
      ],
    });
    try {
      recording.clear();
      const again = await send(gw, address, 'GET', '/api/v1/sessions/no-such-session', bearer('gwk_later-2'));
      expect(again.status).toBe(401);
      expect(keyLookups(recording)).toHaveLength(1);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('AUTH_FAILURES_PER_MINUTE behind a proxy listed in TRUST_PROXY', () => {
  const PROXY = '127.0.0.9';
  const suite = gatewayForSuite('sqlite', { AUTH_FAILURES_PER_MINUTE: String(PER_MINUTE), TRUST_PROXY: PROXY });
  beforeAll(() => suite.gw.app.listen(0, '127.0.0.1'));

  /** A request with a made-up key from `from`, with the X-Forwarded-For header `forwardedFor`. */
  const madeUp = (from: string, forwardedFor: string, n: number) =>
    send(suite.gw, from, 'GET', '/api/v1/sessions/no-such-session', {
      ...bearer(`gwk_made-up-${n}`),
      'x-forwarded-for': forwardedFor,
    });

  it('counts the clients the proxy forwards for apart, by the address the proxy appended', async () => {
    for (let i = 0; i < PER_MINUTE; i++) {
      // What the client wrote itself (left of the proxy's entry) changes each time and does not matter.
      expect((await madeUp(PROXY, `198.51.100.${i}, 203.0.113.5`, i)).status).toBe(401);
    }
    expect((await madeUp(PROXY, '198.51.100.99, 203.0.113.5', 10)).status).toBe(429);
    // Another client behind the same proxy: not refused for the first one's failures.
    expect((await madeUp(PROXY, '203.0.113.6', 11)).status).toBe(401);
  });

  it('ignores X-Forwarded-For from an address that is not a listed proxy', async () => {
    const direct = '127.0.0.10';
    for (let i = 0; i < PER_MINUTE; i++) {
      expect((await madeUp(direct, `203.0.113.${20 + i}`, 20 + i)).status).toBe(401);
    }
    expect((await madeUp(direct, '203.0.113.99', 30)).status).toBe(429);
  });
});

describe('AUTH_FAILURES_PER_MINUTE unset (0)', () => {
  const suite = gatewayForSuite('sqlite');

  it('answers every made-up key 401, each looked up', async () => {
    const recording = recordStatements(suite.gw.app.get(DataSource), suite.gw.app.get(HotSql));
    try {
      for (let i = 0; i < 50; i++)
        await suite.gw.http
          .get('/api/v1/sessions/no-such-session')
          .set(bearer(`gwk_made-up-${i}`))
          .expect(401);
      expect(keyLookups(recording)).toHaveLength(50);
    } finally {
      recording.stop();
    }
  });
});
