/**
 * Issue 14 "the loop's own overhead": a run of the gateway's own agent loop with K tool-call rounds and a final
 * answer (model: the scripted OpenAI-compatible server on loopback; tool: an HTTP tool on loopback), against the
 * same work done from outside (K × (`act` with one call + one model request) + the final model request), on SQLite.
 * The difference per model round is what the loop itself costs: checkpoints, tool specs, queue claim, events.
 * Run: npm run bench:loop   Env: BENCH_RUNS (default 20), BENCH_ROUNDS_PER_RUN (K, default 5), BENCH_WARMUP (3).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { createKey, startTestGateway, toolBody } from '@test/support/gateway-test-app';
import { ScriptedModelServer } from '@test/support/scripted-model.server';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { formatSummary, summarize } from './support/latency';

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const K = Number(process.env.BENCH_ROUNDS_PER_RUN ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-loop-'));
  const model = await new ScriptedModelServer().start();
  const remote = await new RecordingHttpServer().start();
  remote.handler = (_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  };
  const gw = await startTestGateway(`sqlite:${join(dir, 'gateway.sqlite')}`, {
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    RUN_POLL_INTERVAL_MS: '50',
    TASK_WORKERS: '1',
  });
  try {
    const runtime = await createKey(gw, 'bench', 'runtime');
    const tool = await gw.http
      .post('/api/v1/admin/tools')
      .set(gw.admin)
      .send(toolBody({ name: 'bench_lookup', tenantId: 'bench', httpMethod: 'GET', endpoint: remote.url('/lookup') }));
    const provider = await gw.http.post('/api/v1/admin/model-providers').set(gw.admin).send({
      name: 'bench',
      tenantId: 'bench',
      kind: 'OPENAI_COMPATIBLE',
      baseUrl: model.baseUrl,
      model: 'bench',
    });
    const agent = await gw.http
      .post('/api/v1/admin/agents')
      .set(gw.admin)
      .send({ name: 'bench', tenantId: 'bench', modelProviderId: provider.body.id, maxIterations: 1000 });
    await gw.http
      .put(`/api/v1/admin/agents/${agent.body.id}/tools`)
      .set(gw.admin)
      .send({ toolIds: [tool.body.id] });
    const session = async () =>
      (
        await gw.http
          .post('/api/v1/sessions')
          .set(runtime)
          .send({ agentId: agent.body.id, userId: 'u', permissions: [] })
      ).body.id as string;
    const script = () => {
      for (let i = 0; i < K; i++)
        model.script('bench', {
          toolCalls: [{ id: `c${Math.random().toString(36).slice(2)}`, name: 'bench_lookup', arguments: '{"q":"x"}' }],
        });
      model.script('bench', { text: 'done' });
    };

    const loopRun = async () => {
      script();
      const sessionId = await session();
      const t0 = performance.now();
      const res = await gw.http
        .post(`/api/v1/sessions/${sessionId}/messages`)
        .set(runtime)
        .send({ clientMessageId: 'm', content: 'go', wait: true });
      const elapsed = performance.now() - t0;
      if (res.body.status !== 'COMPLETED') throw new Error(`run ended ${JSON.stringify(res.body)}`);
      return elapsed;
    };
    const outsideRun = async () => {
      script();
      const sessionId = await session();
      const ask = () =>
        request(`${model.baseUrl}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: 'go' }] }),
        }).then((r) => r.body.json());
      const t0 = performance.now();
      for (let i = 1; i <= K; i++) {
        await ask();
        await gw.http
          .post(`/api/v1/sessions/${sessionId}/act`)
          .set(runtime)
          .send({ iteration: i, toolCalls: [{ id: `o${i}`, name: 'bench_lookup', arguments: '{"q":"x"}' }] });
      }
      await ask();
      return performance.now() - t0;
    };

    for (let i = 0; i < WARMUP; i++) {
      await loopRun();
      await outsideRun();
    }
    const loop: number[] = [];
    const outside: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      loop.push((await loopRun()) / (K + 1));
      outside.push((await outsideRun()) / (K + 1));
    }
    const l = summarize(loop);
    const o = summarize(outside);
    console.log(`agent loop bench: SQLite (WAL), ${RUNS} runs of ${K} tool rounds + 1 final answer, per model round`);
    console.log(formatSummary('gateway loop (POST messages, wait)', l));
    console.log(formatSummary('same work from outside (act+model)', o));
    console.log(
      `loop overhead per round: p50 ${(l.p50 - o.p50).toFixed(3)} ms, mean ${(l.mean - o.mean).toFixed(3)} ms`,
    );
  } finally {
    await gw.close();
    await model.close();
    await remote.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
