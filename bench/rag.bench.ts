/**
 * Issue 15 "Size": one knowledge base of 10,000 chunks; the admin search (`POST /knowledge-bases/{id}/search`) and
 * RAG_SEARCH through `act` (journal, visibility re-check and tool log included), one caller, on SQLite and MariaDB.
 * Goal: p50 under 20 ms on both. Queries mix frequent and rare words, English and Chinese.
 * Run: npm run bench:rag
 * Env: BENCH_CHUNKS (10000), BENCH_N (timed queries per path, 300), BENCH_WARMUP (50),
 *      BENCH_DIALECTS (sqlite,mysql), TEST_MYSQL_URL (else a throwaway MariaDB is started when installed),
 *      BENCH_KEEP_DB=1 (keep the SQLite file's folder and print where it is).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findMariaDbBinaries } from '@test/support/mariadb-binaries';
import { MariaDbServer, startMariaDbServer } from '@test/support/mariadb-server';
import { createTestDatabaseUrl } from '@test/support/test-database';
import { GatewayProcess, startGatewayProcess } from '@test/support/gateway-process';
import { expectStatus } from '@test/crash/support/gateway-runtime.seed';
import { formatSummary, summarize, timeSequential } from './support/latency';

const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 10_000);
const N = Number(process.env.BENCH_N ?? 300);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 50);
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,mysql').split(',').map((d) => d.trim());
const CHUNKS_PER_DOCUMENT = 50;
const GOAL_P50_MS = 20;

/** A deterministic pseudo-random stream (the same corpus and queries on every run and database). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'tor', 'vel', 'su', 'dan', 'pri', 'os', 'gue', 'zel', 'an', 'bre', 'fin'];
const HANZI = '数据库备份恢复快照退款政策工作日配送包裹关税年假审批系统用户权限日志监控告警网络服务器部署版本';
const random = rng(42);
const VOCABULARY = Array.from({ length: 6000 }, (_, i) =>
  i % 5 === 4
    ? Array.from({ length: 2 }, () => HANZI[Math.floor(random() * HANZI.length)]).join('')
    : Array.from({ length: 2 + (i % 3) }, () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]).join(''),
);
/** Zipf-like: low indexes are frequent words, high ones rare. */
const word = (r: () => number) => VOCABULARY[Math.floor(VOCABULARY.length * r() ** 3)];

function paragraph(r: () => number): string {
  const words = Array.from({ length: 90 + Math.floor(r() * 40) }, () => word(r));
  return `${words.join(' ')}.`;
}

function document(r: () => number, n: number): string {
  const sections = Array.from({ length: CHUNKS_PER_DOCUMENT / 5 }, (_, s) => {
    const paragraphs = Array.from({ length: 5 }, () => paragraph(r)).join('\n\n');
    return `## ${word(r)} ${word(r)} ${s}\n${paragraphs}`;
  });
  return `# ${word(r)} ${n}\n${sections.join('\n\n')}`;
}

interface BenchDatabase {
  url: string;
  description: string;
  drop(): Promise<void>;
}

async function database(dialect: string): Promise<BenchDatabase | null> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'bench-rag-'));
    return {
      url: `sqlite:${join(dir, 'gateway.sqlite')}`,
      description: 'SQLite file, WAL, synchronous=NORMAL',
      drop: async () => {
        if (process.env.BENCH_KEEP_DB) console.log(`  kept ${dir}`);
        else rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  let server: MariaDbServer | undefined;
  if (!process.env.TEST_MYSQL_URL) {
    if (!findMariaDbBinaries()) return null;
    server = await startMariaDbServer();
    process.env.TEST_MYSQL_URL = server.url;
  }
  const db = await createTestDatabaseUrl('mysql');
  return {
    url: db.url,
    description: server ? 'throwaway MariaDB, durable defaults' : 'MySQL/MariaDB at TEST_MYSQL_URL',
    drop: async () => {
      await db.drop();
      await server?.stop();
      if (server) delete process.env.TEST_MYSQL_URL;
    },
  };
}

async function seed(gw: GatewayProcess): Promise<{ kb: string; runtime: Record<string, string>; session: string }> {
  const kb = expectStatus(
    await gw.call(
      'POST',
      '/api/v1/admin/knowledge-bases',
      { name: 'bench', tenantId: 'bench', kind: 'INTERNAL' },
      gw.admin,
    ),
    201,
    'create knowledge base',
  ).id as string;
  const r = rng(7);
  const started = performance.now();
  let chunks = 0;
  for (let n = 0; chunks < CHUNKS; n++) {
    const doc = expectStatus(
      await gw.call(
        'POST',
        `/api/v1/admin/knowledge-bases/${kb}/documents`,
        { title: `${word(r)} ${word(r)} ${n}`, content: document(r, n), mimeType: 'text/markdown' },
        gw.admin,
      ),
      201,
      'add document',
    );
    chunks += doc.chunkCount as number;
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`  indexed ${chunks} chunks in ${seconds.toFixed(1)} s (${(chunks / seconds).toFixed(0)} chunks/s)`);

  const tools = expectStatus(
    await gw.call('GET', '/api/v1/admin/tools?source=BUILTIN&pageSize=500', undefined, gw.admin),
    200,
    'tools',
  );
  const rag = (tools.items as Array<{ id: string; name: string }>).find((t) => t.name === 'RAG_SEARCH')!;
  const agent = expectStatus(
    await gw.call('POST', '/api/v1/admin/agents', { name: 'rag', tenantId: 'bench', maxIterations: 1000 }, gw.admin),
    201,
    'agent',
  );
  expectStatus(
    await gw.call('PUT', `/api/v1/admin/agents/${agent.id}/tools`, { toolIds: [rag.id] }, gw.admin),
    200,
    'bind',
  );
  expectStatus(
    await gw.call('PUT', `/api/v1/admin/agents/${agent.id}/knowledge-bases`, { knowledgeBaseIds: [kb] }, gw.admin),
    200,
    'bind kb',
  );
  const key = expectStatus(
    await gw.call('POST', '/api/v1/admin/api-keys', { name: 'rt', role: 'runtime', tenantId: 'bench' }, gw.admin),
    201,
    'key',
  );
  const runtime = { Authorization: `Bearer ${key.key as string}` };
  const session = expectStatus(
    await gw.call('POST', '/api/v1/sessions', { agentId: agent.id, userId: 'u', permissions: [] }, runtime),
    201,
    'session',
  ).id as string;
  return { kb, runtime, session };
}

async function benchDialect(dialect: string): Promise<boolean | null> {
  const db = await database(dialect);
  if (!db) {
    console.log(`\n${dialect}: no server available (install mariadb-server or set TEST_MYSQL_URL); skipped`);
    return null;
  }
  console.log(`\n${dialect}: ${db.description}`);
  const gw = await startGatewayProcess({ databaseUrl: db.url, env: { NODE_ENV: 'production', LOG_LEVEL: 'warn' } });
  try {
    const { kb, runtime, session } = await seed(gw);
    const q = rng(99);
    const query = () => Array.from({ length: 2 + Math.floor(q() * 3) }, () => word(q)).join(' ');
    let hits = 0;
    const search = await timeSequential(N, WARMUP, async () => {
      const res = expectStatus(
        await gw.call('POST', `/api/v1/admin/knowledge-bases/${kb}/search`, { query: query(), topK: 5 }, gw.admin),
        200,
        'search',
      );
      if ((res.results as unknown[]).length > 0) hits++;
    });
    let iteration = 0;
    const act = await timeSequential(N, WARMUP, async () => {
      iteration++;
      const res = expectStatus(
        await gw.call(
          'POST',
          `/api/v1/sessions/${session}/act`,
          {
            iteration,
            toolCalls: [{ id: `r${iteration}`, name: 'RAG_SEARCH', arguments: { query: query(), topK: 5 } }],
          },
          runtime,
        ),
        200,
        'act',
      );
      if (res.results[0].status !== 'COMPLETED') throw new Error(`RAG_SEARCH failed: ${res.results[0].content}`);
    });
    const floorGet = await timeSequential(N, WARMUP, async () => {
      expectStatus(await gw.call('GET', `/api/v1/admin/knowledge-bases/${kb}`, undefined, gw.admin), 200, 'get');
    });
    const floorAct = await timeSequential(N, WARMUP, async () => {
      iteration++;
      const call = { id: `f${iteration}`, name: 'READ_TOOL_RESULT', arguments: { toolCallId: 'none' } };
      expectStatus(
        await gw.call('POST', `/api/v1/sessions/${session}/act`, { iteration, toolCalls: [call] }, runtime),
        200,
        'act floor',
      );
    });
    console.log(`  ${formatSummary('floor: GET the knowledge base', summarize(floorGet))}`);
    console.log(`  ${formatSummary('floor: act READ_TOOL_RESULT', summarize(floorAct))}`);
    const searchSummary = summarize(search);
    const actSummary = summarize(act);
    console.log(`  ${formatSummary('admin search (topK 5)', searchSummary)}  (${hits}/${N + WARMUP} with results)`);
    console.log(`  ${formatSummary('RAG_SEARCH through act', actSummary)}`);
    const ok = searchSummary.p50 < GOAL_P50_MS && actSummary.p50 < GOAL_P50_MS;
    console.log(`  goal p50 < ${GOAL_P50_MS} ms: ${ok ? 'met' : 'NOT met'}`);
    return ok;
  } finally {
    await gw.stop();
    await db.drop();
  }
}

async function main(): Promise<void> {
  console.log(
    `RAG bench: ${CHUNKS} chunks in one knowledge base, ${N} timed queries per path after ${WARMUP} warm-up, 1 caller`,
  );
  const outcomes: Array<boolean | null> = [];
  for (const dialect of DIALECTS) outcomes.push(await benchDialect(dialect));
  if (outcomes.includes(false)) process.exitCode = 1;
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
