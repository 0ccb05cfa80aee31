/**
 * Issue 3 "Speed": the same MCP tool called directly with the SDK client and through the gateway's
 * `POST /api/v1/tools/{name}/execute`, side by side in one run, at 1 and 8 concurrent callers.
 * Run: node -r @swc-node/register bench/execute.bench.ts
 * Env: BENCH_N (calls per path and concurrency, default 2000), BENCH_WARMUP (300), BENCH_ROUNDS (4),
 *      BENCH_PROFILE_DIR (CPU-profile the gateway).
 * Two direct callers are measured: the SDK as shipped (the baseline of the ratios and the goal) and the SDK
 * with an undici fetch (the stricter baseline; its ratios are printed too).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEchoMcpProcess } from './support/echo-mcp.process';
import { startFloorProxy } from './support/floor-proxy.process';
import { connectDirectBaselines, DIRECT_TUNED } from './support/direct-baselines';
import { BENCH_TOOL, startBenchGateway } from './support/bench-gateway';
import { JsonClient } from './support/json-client';
import { BenchCall, compareSideBySide, warmUp } from './support/load-runner';
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
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const CALLERS = [1, 8];

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-execute-'));
  const mcp = await startEchoMcpProcess();
  const gateway = await startBenchGateway({
    databaseUrl: `sqlite:${join(dir, 'gateway.sqlite')}`,
    mcpUrl: mcp.url,
    instanceId: 'bench-execute',
    profileDir: process.env.BENCH_PROFILE_DIR,
  });
  const direct = await connectDirectBaselines(mcp.url);
  const floor = await startFloorProxy(mcp.url);
  const http = new JsonClient(gateway.gw.url, gateway.seeded.runtime);
  try {
    const body = {
      agentId: gateway.seeded.agentId,
      userId: 'bench-user',
      permissions: [],
      arguments: { message: 'hello from the bench' },
    };
    const paths: Record<string, BenchCall> = {
      ...direct.paths('echo', { message: 'hello from the bench' }),
      'floor proxy': () => floor.call('echo', { message: 'hello from the bench' }),
      'gateway execute': async () => {
        const res = await http.post(`/api/v1/tools/${BENCH_TOOL}/execute`, body);
        if (res.status !== 'COMPLETED') throw new Error(`execute answered ${JSON.stringify(res)}`);
      },
    };
    printSetup('bench/execute: MCP tools/call direct vs POST /api/v1/tools/{name}/execute', {
      'calls per path and concurrency': `${N} in ${ROUNDS} alternating rounds, after ${WARMUP} warm-up calls per path`,
      'MCP server':
        'SDK McpServer `echo` on node:http, StreamableHTTPServerTransport, JSON responses, stateful session, own process',
      ...direct.describe,
      'floor proxy':
        'a minimal HTTP -> MCP proxy process (no keys, registry, validation or log): what one more hop costs here',
      gateway:
        'child process (NODE_ENV=production), SQLite file; client: undici keep-alive HTTP/1.1 JSON; gateway to MCP: its pooled session',
    });
    await warmUp(paths, WARMUP);
    const rows: ComparisonRow[] = [];
    for (const callers of CALLERS) rows.push({ callers, samples: await compareSideBySide(paths, callers, N, ROUNDS) });
    printComparison('latency and throughput (ratios to the SDK as shipped)', rows);
    printRatiosTo(rows, DIRECT_TUNED, 'gateway execute');
    printFloorShare(rows, 1, DIRECT_TUNED, 'floor proxy', 'gateway execute');
    console.log('');
    const ratio = p50Ratio(rows, 1, 'gateway execute');
    printGoals([
      { label: 'p50 through the gateway <= 1.5x direct with the SDK (1 caller)', value: ratio, met: ratio <= 1.5 },
    ]);
  } finally {
    await http.close();
    await direct.close();
    await floor.stop();
    await gateway.stop();
    await mcp.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
