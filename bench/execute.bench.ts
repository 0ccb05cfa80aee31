/**
 * Issue 3 "Speed": the same MCP tool called with the bare SDK client (no gateway) and through the gateway's
 * `POST /api/v1/tools/{name}/execute`, side by side in one run, at 1 and 8 concurrent callers.
 * Warm-up: 2000 untimed calls per path by default. The gateway's code path (Fastify, Nest, ajv, the MCP exchange)
 * needs a few thousand calls before V8 has optimized it; after a few hundred its JIT work is measured as well.
 * Run: node -r @swc-node/register bench/execute.bench.ts
 * Env: BENCH_N (calls per path and concurrency, default 2000), BENCH_WARMUP (2000),
 *      BENCH_ROUNDS (4),
 *      BENCH_CALLERS (1,8), BENCH_PROFILE_DIR (CPU-profile the gateway), BENCH_PROFILE_INTERVAL_US (its sampling
 *      interval, 1000), BENCH_SDK_CLIENT=0 (skip the second gateway).
 * Two bare-SDK callers are measured: the SDK as shipped (the baseline of the ratios and the goal) and the SDK
 * with an undici fetch (the stricter baseline; its ratios are printed too). A second gateway runs with
 * MCP_TOOLS_CALL_CLIENT=sdk (tools/call through the SDK Client on the same guarded undici dispatcher instead
 * of McpStreamableExchange): what the exchange saves is printed, the figure that decides whether it stays.
 * The gateways' CPU time per call is printed too: it hardly moves with the machine's load, unlike latency.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEchoMcpProcess } from './support/echo-mcp.process';
import { startFloorProxy } from './support/floor-proxy.process';
import { connectBareSdkBaselines, BARE_SDK_UNDICI } from './support/bare-sdk-baselines';
import { BENCH_TOOL, BenchGateway, startBenchGateway } from './support/bench-gateway';
import { summarize } from './support/latency';
import { cpuMsOf } from './support/process-cpu';
import { JsonClient } from './support/json-client';
import { BenchCall, compareSideBySide, cpuMsPerCall, warmUp } from './support/load-runner';
import {
  ComparisonRow,
  p50Ratio,
  printComparison,
  printFloorShare,
  printGoals,
  printRatiosTo,
  printSetup,
} from './support/comparison-report';

const N = Number(process.env.BENCH_N ?? 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const CALLERS = (process.env.BENCH_CALLERS ?? '1,8').split(',').map(Number);
const WITH_SDK_CLIENT = process.env.BENCH_SDK_CLIENT !== '0';
const EXECUTE = 'gateway execute';
const EXECUTE_SDK = 'execute (SDK client)';

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-execute-'));
  const mcp = await startEchoMcpProcess();
  const gateway = await startBenchGateway({
    databaseUrl: `sqlite:${join(dir, 'gateway.sqlite')}`,
    mcpUrl: mcp.url,
    instanceId: 'bench-execute',
    profileDir: process.env.BENCH_PROFILE_DIR,
  });
  const sdkGateway = WITH_SDK_CLIENT
    ? await startBenchGateway({
        databaseUrl: `sqlite:${join(dir, 'gateway-sdk-client.sqlite')}`,
        mcpUrl: mcp.url,
        instanceId: 'bench-execute-sdk-client',
        env: { MCP_TOOLS_CALL_CLIENT: 'sdk' },
      })
    : undefined;
  const baseline = await connectBareSdkBaselines(mcp.url);
  const floor = await startFloorProxy(mcp.url);
  const http = new JsonClient(gateway.gw.url, gateway.seeded.runtime);
  const sdkHttp = sdkGateway && new JsonClient(sdkGateway.gw.url, sdkGateway.seeded.runtime);
  try {
    const paths: Record<string, BenchCall> = {
      ...baseline.paths('echo', { message: 'hello from the bench' }),
      'floor proxy': () => floor.call('echo', { message: 'hello from the bench' }),
      [EXECUTE]: executeCall(http, gateway),
      ...(sdkGateway && sdkHttp ? { [EXECUTE_SDK]: executeCall(sdkHttp, sdkGateway) } : {}),
    };
    printSetup('bench/execute: MCP tools/call with the bare SDK vs POST /api/v1/tools/{name}/execute', {
      'calls per path and concurrency': `${N} in ${ROUNDS} alternating rounds, after ${WARMUP} warm-up calls per path`,
      'MCP server':
        'SDK McpServer `echo` on node:http, StreamableHTTPServerTransport, JSON responses, stateful session, own process',
      ...baseline.describe,
      'floor proxy':
        'a minimal HTTP -> MCP proxy process (no keys, registry, validation or log): what one more hop costs here',
      gateway:
        'child process (NODE_ENV=production), SQLite file; client: undici keep-alive HTTP/1.1 JSON; gateway to MCP: its pooled session',
      ...(sdkGateway && {
        [EXECUTE_SDK]:
          'a second gateway process, the same but MCP_TOOLS_CALL_CLIENT=sdk: tools/call through the SDK Client (on the same guarded undici dispatcher) instead of McpStreamableExchange',
      }),
    });
    await warmUp(paths, WARMUP);
    const rows: ComparisonRow[] = [];
    const cpu: string[] = [];
    for (const callers of CALLERS) {
      const samples = await compareSideBySide(paths, callers, N, ROUNDS, {
        [EXECUTE]: () => cpuMsOf(gateway.gw.pid!),
        ...(sdkGateway && { [EXECUTE_SDK]: () => cpuMsOf(sdkGateway.gw.pid!) }),
      });
      rows.push({ callers, samples });
      const perCall = [EXECUTE, ...(sdkGateway ? [EXECUTE_SDK] : [])].map(
        (path) => `${path} ${cpuMsPerCall(samples[path])!.toFixed(3)} ms`,
      );
      cpu.push(`${callers} caller(s): ${perCall.join(', ')}`);
    }
    printComparison('latency and throughput (ratios to the SDK as shipped)', rows);
    printRatiosTo(rows, BARE_SDK_UNDICI, EXECUTE);
    printFloorShare(rows, 1, BARE_SDK_UNDICI, 'floor proxy', EXECUTE);
    if (sdkGateway) printExchangeSaving(rows);
    console.log(
      `gateway process CPU per call during its own turns (user+system, /proc, 10 ms ticks): ${cpu.join('; ')}`,
    );
    console.log('');
    if (CALLERS.includes(1)) {
      const ratio = p50Ratio(rows, 1, EXECUTE);
      printGoals([
        { label: 'p50 through the gateway <= 1.3x the bare SDK (1 caller)', value: ratio, met: ratio <= 1.3 },
      ]);
    }
  } finally {
    await http.close();
    await sdkHttp?.close();
    await baseline.close();
    await floor.stop();
    await gateway.stop();
    await sdkGateway?.stop();
    await mcp.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One `execute` of the benchmark tool on a gateway; anything but COMPLETED fails the run. */
function executeCall(http: JsonClient, gateway: BenchGateway): BenchCall {
  const body = {
    agentId: gateway.seeded.agentId,
    userId: 'bench-user',
    permissions: [],
    arguments: { message: 'hello from the bench' },
  };
  return async () => {
    const res = await http.post(`/api/v1/tools/${BENCH_TOOL}/execute`, body);
    if (res.status !== 'COMPLETED') throw new Error(`execute answered ${JSON.stringify(res)}`);
  };
}

/** What McpStreamableExchange saves of execute's p50, per concurrency (it stays when more than ~15%). */
function printExchangeSaving(rows: ComparisonRow[]): void {
  for (const row of rows) {
    const exchange = summarize(row.samples[EXECUTE].latencies).p50;
    const sdk = summarize(row.samples[EXECUTE_SDK].latencies).p50;
    console.log(
      `McpStreamableExchange at ${row.callers} caller(s): execute p50 ${exchange.toFixed(3)} ms vs ${sdk.toFixed(3)} ms with the SDK client: saves ${(((sdk - exchange) / sdk) * 100).toFixed(0)}%`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
