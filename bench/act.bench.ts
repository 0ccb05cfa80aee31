/**
 * Issue 4 "Speed": one MCP tool call through `POST /api/v1/sessions/{id}/act` (journal on: STARTED insert
 * and outcome update per call; a new toolCallId per call; one session per caller) against the same call
 * made with the bare SDK client, side by side, on SQLite and on MariaDB, at 1 and 8 callers.
 * On MySQL a bare mysql2 pool making the journal's one read and two commits on the same server ('journal floor')
 * runs beside them: what the database needs at the least, so the gateway's own time can be set against it.
 * Warm-up: 2000 untimed calls per path by default. The gateway's code path (Fastify, Nest, ajv, the MCP exchange)
 * needs a few thousand calls before V8 has optimized it; after a few hundred its JIT work is measured as well.
 * Run: node -r @swc-node/register bench/act.bench.ts
 * Env: BENCH_N (calls per path and concurrency, default 1500), BENCH_WARMUP (2000),
 *      BENCH_ROUNDS (4),
 *      BENCH_DIALECTS (sqlite,mysql), BENCH_CALLERS (1,8), BENCH_PROFILE_DIR (CPU-profile each gateway),
 *      BENCH_PROFILE_INTERVAL_US (its sampling interval, 1000), SQLITE_SYNCHRONOUS (NORMAL; passed to the gateway),
 *      TEST_MYSQL_URL (a MySQL/MariaDB server; else a throwaway MariaDB with durable defaults is started when installed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findMariaDbBinaries } from '@test/support/mariadb-binaries';
import { MariaDbServer, startMariaDbServer } from '@test/support/mariadb-server';
import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';
import { openSession } from '@test/crash/support/gateway-runtime.seed';
import { startEchoMcpProcess } from './support/echo-mcp.process';
import { FloorProxy, startFloorProxy } from './support/floor-proxy.process';
import { connectBareSdkBaselines, BareSdkBaselines, BARE_SDK_UNDICI } from './support/bare-sdk-baselines';
import { BENCH_TOOL, startBenchGateway } from './support/bench-gateway';
import { connectMysqlJournalFloor, MysqlJournalFloor } from './support/mysql-journal-floor';
import { JsonClient } from './support/json-client';
import { BenchCall, compareSideBySide, cpuMsPerCall, warmUp } from './support/load-runner';
import { cpuMsOf } from './support/process-cpu';
import {
  ComparisonRow,
  p50Ratio,
  printComparison,
  printDatabaseFloorGap,
  printFloorShare,
  printGoals,
  printJournaledClientGap,
  printRatiosTo,
  printSetup,
  throughputRatio,
} from './support/comparison-report';

const N = Number(process.env.BENCH_N ?? 1500);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,mysql').split(',').map((d) => d.trim());
const CALLERS = (process.env.BENCH_CALLERS ?? '1,8').split(',').map(Number);
const MESSAGE = 'hello from the bench';
/** The path of the bare mysql2 client (MySQL only). */
const JOURNAL_FLOOR = 'journal floor';
/** The bare mysql2 client making its statements around the bare MCP call (MySQL only). */
const JOURNALED_CLIENT = 'journaled client';

/** The database of one dialect, and how to get rid of it. */
interface BenchDatabase {
  url: string;
  description: string;
  drop(): Promise<void>;
}

async function sqliteDatabase(): Promise<BenchDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-act-'));
  const synchronous = process.env.SQLITE_SYNCHRONOUS ?? 'NORMAL';
  return {
    url: `sqlite:${join(dir, 'gateway.sqlite')}`,
    description: `SQLite file, WAL, synchronous=${synchronous}`,
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A database on TEST_MYSQL_URL, or on a throwaway MariaDB with its durable defaults (fsync at commit). */
async function mysqlDatabase(): Promise<BenchDatabase | null> {
  let server: MariaDbServer | undefined;
  if (!process.env.TEST_MYSQL_URL) {
    if (!findMariaDbBinaries()) return null;
    server = await startMariaDbServer();
    process.env.TEST_MYSQL_URL = server.url;
  }
  const db: TestDatabase = await createTestDatabaseUrl('mysql');
  return {
    url: db.url,
    description: server
      ? 'throwaway MariaDB, durable defaults (innodb_flush_log_at_trx_commit=1)'
      : 'MySQL/MariaDB at TEST_MYSQL_URL',
    drop: async () => {
      await db.drop();
      await server?.stop();
    },
  };
}

async function benchDialect(
  dialect: string,
  db: BenchDatabase,
  mcpUrl: string,
  baseline: BareSdkBaselines,
  floor: FloorProxy,
): Promise<ComparisonRow[]> {
  const gateway = await startBenchGateway({
    databaseUrl: db.url,
    mcpUrl,
    instanceId: `bench-act-${dialect}`,
    profileDir: process.env.BENCH_PROFILE_DIR,
    env: process.env.SQLITE_SYNCHRONOUS ? { SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS } : {},
  });
  const http = new JsonClient(gateway.gw.url, gateway.seeded.runtime);
  const toolCall = baseline.paths('echo', { message: MESSAGE })[BARE_SDK_UNDICI];
  const dbFloors: MysqlJournalFloor[] =
    dialect === 'mysql'
      ? [
          await connectMysqlJournalFloor(db.url, { tenantId: 'bench-floor' }),
          await connectMysqlJournalFloor(db.url, { tenantId: 'bench-journaled-client', toolCall }),
        ]
      : [];
  try {
    const sessions = await Promise.all(
      Array.from({ length: Math.max(8, ...CALLERS) }, () => openSession(gateway.gw, gateway.seeded)),
    );
    let seq = 0;
    const paths: Record<string, BenchCall> = {
      ...baseline.paths('echo', { message: MESSAGE }),
      'floor proxy': () => floor.call('echo', { message: MESSAGE }),
      ...(dbFloors.length ? { [JOURNAL_FLOOR]: dbFloors[0].call, [JOURNALED_CLIENT]: dbFloors[1].call } : {}),
      [`act (${dialect})`]: async (caller) => {
        const id = `bench-${caller}-${++seq}`;
        const res = await http.post(`/api/v1/sessions/${sessions[caller]}/act`, {
          iteration: 1,
          toolCalls: [{ id, name: BENCH_TOOL, arguments: { message: MESSAGE } }],
        });
        const result = res.results?.[0];
        if (res.status !== 'COMPLETED' || result?.status !== 'COMPLETED' || result.reused)
          throw new Error(`act answered ${JSON.stringify(res)}`);
      },
    };
    await warmUp(paths, WARMUP);
    const rows: ComparisonRow[] = [];
    for (const callers of CALLERS) {
      const samples = await compareSideBySide(paths, callers, N, ROUNDS, {
        [`act (${dialect})`]: () => cpuMsOf(gateway.gw.pid!),
      });
      rows.push({ callers, samples });
      console.log(
        `act (${dialect}) at ${callers} caller(s): gateway process CPU ${cpuMsPerCall(samples[`act (${dialect})`])!.toFixed(3)} ms per act, during its own turns (${N} acts)`,
      );
    }
    return rows;
  } finally {
    for (const dbFloor of dbFloors) await dbFloor.close();
    await http.close();
    await gateway.stop();
  }
}

async function main(): Promise<void> {
  const mcp = await startEchoMcpProcess();
  const baseline = await connectBareSdkBaselines(mcp.url);
  const floor = await startFloorProxy(mcp.url);
  const databases: Array<[string, BenchDatabase]> = [];
  try {
    if (DIALECTS.includes('sqlite')) databases.push(['sqlite', await sqliteDatabase()]);
    if (DIALECTS.includes('mysql')) {
      const db = await mysqlDatabase();
      if (db) databases.push(['mysql', db]);
      else console.warn('mysql skipped: set TEST_MYSQL_URL or install mariadb-server mariadb-client');
    }
    printSetup('bench/act: MCP tools/call with the bare SDK vs POST /api/v1/sessions/{id}/act (journal on)', {
      'calls per path and concurrency': `${N} in ${ROUNDS} alternating rounds, after ${WARMUP} warm-up calls per path`,
      'MCP server':
        'SDK McpServer `echo` on node:http, StreamableHTTPServerTransport, JSON responses, stateful session, own process',
      ...baseline.describe,
      'floor proxy':
        'a minimal HTTP -> MCP proxy process (no keys, registry, validation or journal): what one more hop costs here',
      [JOURNAL_FLOOR]:
        'MySQL only: a bare mysql2 pool making the journal read and the two autocommit writes (STARTED, outcome) of one call in tool_call_journal, no HTTP',
      [JOURNALED_CLIENT]:
        'MySQL only: the journal floor with the bare SDK+undici call made between its two writes, as act makes it (no gateway, no extra hop)',
      act: 'one call per act, new toolCallId each, one session per caller (iteration 1 throughout); gateway child process (NODE_ENV=production)',
      databases: databases.map(([d, db]) => `${d}: ${db.description}`).join('; '),
    });
    const goals = [];
    for (const [dialect, db] of databases) {
      const rows = await benchDialect(dialect, db, mcp.url, baseline, floor);
      printComparison(`${dialect}: latency and throughput (ratios to the SDK as shipped)`, rows);
      printRatiosTo(rows, BARE_SDK_UNDICI, `act (${dialect})`);
      // Goals at the concurrencies this run measured (BENCH_CALLERS may leave one out).
      const minRate = dialect === 'mysql' ? 0.6 : 0.7;
      if (dialect !== 'mysql' && CALLERS.includes(1)) {
        const p50 = p50Ratio(rows, 1, `act (${dialect})`);
        goals.push({ label: `${dialect}: p50 <= 1.6x the bare SDK at 1 caller`, value: p50, met: p50 <= 1.6 });
      }
      if (CALLERS.includes(8)) {
        const rate = throughputRatio(rows, 8, `act (${dialect})`);
        goals.push({
          label: `${dialect}: throughput >= ${minRate}x the bare SDK at 8 callers`,
          value: rate,
          met: rate >= minRate,
        });
      }
      if (CALLERS.includes(1)) printFloorShare(rows, 1, BARE_SDK_UNDICI, 'floor proxy', `act (${dialect})`);
      if (dialect === 'mysql') {
        for (const callers of CALLERS.filter((c) => c !== 1))
          printDatabaseFloorGap(rows, callers, 'floor proxy', JOURNAL_FLOOR, `act (${dialect})`);
        if (CALLERS.includes(1)) {
          printJournaledClientGap(rows, 1, BARE_SDK_UNDICI, 'floor proxy', JOURNALED_CLIENT, `act (${dialect})`);
          const gap = printDatabaseFloorGap(rows, 1, 'floor proxy', JOURNAL_FLOOR, `act (${dialect})`);
          goals.push({
            label: `${dialect}: own time within 0.6 ms of the journal floor at 1 caller`,
            value: gap,
            met: gap <= 0.6,
            unit: 'ms over it',
          });
        }
      }
      console.log('');
    }
    printGoals(goals);
  } finally {
    await baseline.close();
    await floor.stop();
    await mcp.stop();
    for (const [, db] of databases) await db.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
