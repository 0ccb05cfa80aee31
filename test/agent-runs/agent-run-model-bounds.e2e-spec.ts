import { createServer, type ServerResponse } from 'node:http';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { closeHttpServer, listenOnLoopback } from '@test/support/loopback-http';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

const ANSWER_PREFIX =
  '{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"';
const MAX_ANSWER_BYTES = 65_536;

/** How the hostile provider answers a chat completion. */
type Behaviour = 'drip' | 'huge-chunked' | 'huge-declared';

/**
 * A hostile or broken model provider: headers at once, then a body that never ends, or one larger than the bound.
 * The run fails with the reason, within MODEL_CALL_TIMEOUT_MS, and no worker is held.
 */
describe('model answers are bounded in time (body included) and size', () => {
  const suite = gatewayForSuite('sqlite', {
    ...AGENT_LOOP_ENV,
    MODEL_CALL_TIMEOUT_MS: '1000',
    MODEL_MAX_RETRIES: '0',
    MODEL_MAX_ANSWER_BYTES: String(MAX_ANSWER_BYTES),
  });
  const fx = new AgentLoopFixture(() => suite.gw);
  let behaviour: Behaviour = 'drip';
  const drips = new Set<NodeJS.Timeout>();
  const answer = (res: ServerResponse) => {
    if (behaviour === 'drip') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(ANSWER_PREFIX);
      const drip = setInterval(() => res.write('a'), 100); // a byte every 100 ms, for ever
      drips.add(drip);
      res.once('close', () => (clearInterval(drip), drips.delete(drip)));
      return;
    }
    const body = `${ANSWER_PREFIX}${'a'.repeat(4 * MAX_ANSWER_BYTES)}"},"finish_reason":"stop"}]}`;
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(behaviour === 'huge-declared' && { 'content-length': String(Buffer.byteLength(body)) }),
    });
    res.end(body);
  };
  let requests = 0;
  const provider = createServer((req, res) => {
    requests++;
    req.resume();
    req.on('end', () => answer(res));
  });
  let providerUrl: string;

  beforeAll(async () => {
    await fx.start();
    providerUrl = `http://127.0.0.1:${await listenOnLoopback(provider)}/v1`;
  });
  afterAll(async () => {
    for (const drip of drips) clearInterval(drip);
    provider.closeAllConnections();
    await closeHttpServer(provider);
    await fx.stop();
  });

  /** A run of a new agent whose provider is the hostile server; resolves with the run once it stopped. */
  async function runAgainstProvider(options: Record<string, unknown> = {}): Promise<Record<string, any>> {
    const agent = await fx.agent([]);
    await suite.gw.http
      .patch(`/api/v1/admin/model-providers/${agent.providerId}`)
      .set(suite.gw.admin)
      .send({ baseUrl: providerUrl, options })
      .expect(200);
    const sessionId = await fx.session(agent.id);
    const { runId } = (await fx.send(sessionId, `m-${behaviour}`, 'hi', false).expect(202)).body;
    return fx.untilRun(sessionId, runId, 'FAILED', 10_000);
  }

  it('a provider dripping its answer fails the run at MODEL_CALL_TIMEOUT_MS, and the workers go on', async () => {
    behaviour = 'drip';
    const run = await runAgainstProvider();
    expect(run.error).toContain('did not finish its answer within 1000 ms');

    // Both workers are free again: a healthy model's run completes.
    const healthy = await fx.agent([]);
    fx.model.script(healthy.model, { text: 'hello' });
    const sessionId = await fx.session(healthy.id);
    const done = await fx.send(sessionId, 'm-healthy', 'hi', true).expect(200);
    expect(done.body).toMatchObject({ status: 'COMPLETED', answer: 'hello' });
  });

  it.each(['huge-chunked', 'huge-declared'] as const)(
    'an answer over MODEL_MAX_ANSWER_BYTES (%s) fails the run at once, not asked again, and stores none of it',
    async (kind) => {
      behaviour = kind;
      requests = 0;
      // Retries allowed: the same request would get the same answer again, each one a paid request; none is made.
      const run = await runAgainstProvider({ maxRetries: 2 });
      expect(requests).toBe(1);
      expect(run.error).toContain(`MODEL_MAX_ANSWER_BYTES (${MAX_ANSWER_BYTES})`);
      expect(run.error).not.toContain('Connection error'); // the bound's words, not the client's
      expect(run.answer ?? null).toBeNull();
    },
  );
});
