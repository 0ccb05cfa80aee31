/**
 * Risk detector benchmark: accuracy on the labelled corpus and latency per evaluation.
 * Run: node -r @swc-node/register bench/risk.bench.ts
 */
import os from 'node:os';
import { RISK_CORPUS } from '@test/risk/risk-corpus';
import { cpuTimed } from '@test/support/cpu-time';

const importStarted = process.hrtime.bigint();
// Required after the timer starts, to report the module's load time (mvdan-sh is 1.5 MB of JS).
/* eslint-disable @typescript-eslint/no-require-imports -- an import would load before the timer starts */
const { evaluateRiskText } =
  require('../src/modules/risk/risk-text.evaluator') as typeof import('@app/modules/risk/risk-text.evaluator');
const { evaluateRiskArguments } =
  require('../src/modules/risk/risk-arguments.evaluator') as typeof import('@app/modules/risk/risk-arguments.evaluator');
const { RiskDetector } =
  require('../src/modules/risk/risk-detector') as typeof import('@app/modules/risk/risk-detector');
/* eslint-enable @typescript-eslint/no-require-imports */
const importMs = Number(process.hrtime.bigint() - importStarted) / 1e6;

const WARMUP_ROUNDS = 100;
const MEASURED_ROUNDS = 200;

/** Tool-call arguments as the gateway sees them. */
const ARGUMENT_SAMPLES: { args: unknown; schema?: Record<string, unknown> }[] = [
  { args: { command: 'npm ci && npm run build && npm test -- --runInBand', cwd: '/srv/app', timeoutMs: 60000 } },
  { args: { command: 'rm', args: ['-rf', '/srv/app/dist'], env: { CI: 'true' } } },
  {
    args: {
      steps: [{ sql: 'SELECT id FROM users WHERE email = $1' }, { sql: 'DELETE FROM sessions' }],
      database: 'app',
    },
    schema: {
      type: 'object',
      properties: {
        steps: { type: 'array', items: { type: 'object', properties: { sql: { type: 'string', 'x-risk': 'sql' } } } },
      },
    },
  },
  {
    args: {
      title: "Fix the user's profile page",
      body: 'Updates the avatar upload and removes the old cache layer.',
      labels: ['bug', 'ui'],
    },
  },
  { args: { cmd: 'rm', args: '-rf /', cwd: '/srv' } },
];

interface Counts {
  tp: number;
  fn: number;
  fp: number;
  tn: number;
  wrongRule: number;
}

function newCounts(): Counts {
  return { tp: 0, fn: 0, fp: 0, tn: 0, wrongRule: 0 };
}

function rates(c: Counts): string {
  const recall = c.tp + c.fn ? `${((100 * c.tp) / (c.tp + c.fn)).toFixed(2)}%` : 'n/a';
  const fpRate = c.fp + c.tn ? `${((100 * c.fp) / (c.fp + c.tn)).toFixed(2)}%` : 'n/a';
  return `recall=${recall.padStart(7)}  false positives=${c.fp} (${fpRate})  expected rule missing: ${c.wrongRule}`;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/** Times every task `rounds` times, interleaved; returns the samples of each task (ms). */
function timeEach(rounds: number, tasks: (() => unknown)[]): number[][] {
  const samples: number[][] = tasks.map(() => []);
  for (let r = 0; r < rounds; r++) {
    tasks.forEach((task, i) => {
      const start = process.hrtime.bigint();
      task();
      samples[i].push(Number(process.hrtime.bigint() - start) / 1e6);
    });
  }
  return samples;
}

function sorted(values: number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Each task's median over the rounds: its own cost, with scheduler preemption (other processes on the cores) filtered out. */
function medians(samples: number[][]): number[] {
  return sorted(samples.map((s) => percentile(sorted(s), 0.5)));
}

function report(label: string, samples: number[]): void {
  const fmt = (ms: number) => ms.toFixed(4).padStart(8);
  console.log(
    `${label.padEnd(22)} n=${String(samples.length).padStart(6)}  p50=${fmt(percentile(samples, 0.5))} ms  p99=${fmt(percentile(samples, 0.99))} ms  max=${fmt(samples[samples.length - 1])} ms`,
  );
}

/** `piece` repeated between `head` and `tail` up to just under the 256 Ki-character parse limit. */
function nearParseLimit(piece: string, head = '', tail = ''): { label: string; text: string } {
  const count = Math.floor((256 * 1024 - 64 - head.length - tail.length) / piece.length);
  const label = [head, `${JSON.stringify(piece)} x${count}`, tail]
    .map((part, i) => (i === 1 || !part ? part : JSON.stringify(part)))
    .filter(Boolean)
    .join(' + ');
  return { label, text: head + piece.repeat(count) + tail };
}

/**
 * The most one evaluation parses and walks: short statements, and the same nodes in one statement (a block, a
 * pipeline, one command's words), up to just under the parse limit; and as much text that is not shell.
 */
const LONG_TEXTS = [
  nearParseLimit('rm a\n'),
  nearParseLimit('echo $x\n'),
  nearParseLimit('cd a && rm b\n'),
  nearParseLimit('git status\n'),
  nearParseLimit('rm a\n', '{\n', '}\n'),
  nearParseLimit(' | rm a', 'rm a'),
  nearParseLimit(' a', 'rm'),
  nearParseLimit(' "$a"', 'rm'),
  nearParseLimit('f() { :; }\n'),
  // Not shell as a whole (its first line), too long to read line by line: pattern-checked.
  nearParseLimit('rm a\n', 'foo (\n'),
];
const LONG_TEXT_ROUNDS = 7;

/** CPU time (median and cheapest of LONG_TEXT_ROUNDS) of evaluating each long text; CPU, not wall time, so load matters less. */
function reportLongTexts(): void {
  console.log(
    `\ntexts of many nodes near the parse limit (CPU ms over ${LONG_TEXT_ROUNDS} rounds; the verdict's rules)`,
  );
  for (const { label, text } of LONG_TEXTS) {
    const runs = sorted(Array.from({ length: LONG_TEXT_ROUNDS }, () => cpuTimed(() => evaluateRiskText(text)).cpuMs));
    const rules = evaluateRiskText(text).rules.map((r) => r.rule);
    console.log(
      `  ${label.padEnd(36)} median ${percentile(runs, 0.5).toFixed(0).padStart(5)} ms  min ${runs[0].toFixed(0).padStart(5)} ms  ${rules.join(', ') || 'not risky'}`,
    );
  }
}

const LARGE_CALL_CHARS = 8 * 1024 * 1024;
const LARGE_CALL_ROUNDS = 3;

/** Longest gap between the ticks of a 1 ms timer while `work` runs: how long the main thread could serve nothing. */
async function longestStall(work: () => unknown): Promise<{ stallMs: number; totalMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 1);
  const started = performance.now();
  await work();
  const totalMs = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 5));
  clearInterval(timer);
  stallMs = Math.max(stallMs, performance.now() - last);
  return { stallMs, totalMs };
}

/** The large calls timed: 8 MB of prose holding one command line, and two million one-letter strings. */
function largeCalls(): { label: string; args: unknown }[] {
  const prose = 'We meet at noon; update the docs before the release. ';
  const half = prose.repeat(Math.ceil(LARGE_CALL_CHARS / 2 / prose.length));
  return [
    {
      label: `one call with ${(LARGE_CALL_CHARS / 1024 / 1024).toFixed(0)} MB of prose`,
      args: { path: 'notes/plan.md', content: `${half}\nrm -rf /var/lib/important\n${half}` },
    },
    {
      label: 'one call with 2,000,000 one-letter strings',
      args: { letters: Array.from({ length: 2_000_000 }, (_, i) => String.fromCharCode(97 + (i % 26))) },
    },
  ];
}

/**
 * Large calls (a file a WRITE_FILE-like tool writes; a huge array of small values): evaluated inline, the main thread
 * serves nothing until the verdict; through the detector's call path, large texts are read on its worker thread.
 */
async function reportLargeCalls(): Promise<void> {
  const detector = new RiskDetector();
  await detector.evaluateCallArguments({ content: 'x'.repeat(LARGE_CALL_CHARS) }); // starts the worker thread
  for (const { label, args } of largeCalls()) {
    const rows: Record<'inline' | 'worker', { stallMs: number; totalMs: number }[]> = { inline: [], worker: [] };
    for (let round = 0; round < LARGE_CALL_ROUNDS; round++) {
      rows.inline.push(await longestStall(() => evaluateRiskArguments(args)));
      rows.worker.push(await longestStall(() => detector.evaluateCallArguments(args)));
    }
    console.log(`\n${label}, median of ${LARGE_CALL_ROUNDS} (alternating)`);
    for (const [mode, runs] of Object.entries(rows)) {
      const stall = percentile(sorted(runs.map((r) => r.stallMs)), 0.5);
      const total = percentile(sorted(runs.map((r) => r.totalMs)), 0.5);
      console.log(
        `  ${mode.padEnd(8)} verdict after ${total.toFixed(0).padStart(5)} ms; main thread stalled at most ${stall.toFixed(0).padStart(5)} ms`,
      );
    }
  }
  await detector.onApplicationShutdown();
}

async function main(): Promise<void> {
  const texts = RISK_CORPUS.map((e) => e.text);
  console.log('# risk detector benchmark');
  console.log(
    `node ${process.version} on ${os.platform()}/${os.arch()}, ${os.cpus()[0]?.model ?? 'unknown cpu'} x${os.cpus().length}`,
  );
  console.log(
    `load average at start: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (above the core count, per-call percentiles measure the scheduler too)`,
  );
  console.log(
    `corpus: ${RISK_CORPUS.length} texts (${RISK_CORPUS.filter((e) => e.risky).length} risky), longest ${Math.max(...texts.map((t) => t.length))} chars`,
  );
  console.log(
    `rounds: ${WARMUP_ROUNDS} warm-up + ${MEASURED_ROUNDS} measured over the corpus and ${ARGUMENT_SAMPLES.length} argument samples\n`,
  );

  const coldStarted = process.hrtime.bigint();
  evaluateRiskText("DELETE FROM users WHERE name LIKE 'tmp%'");
  const coldMs = Number(process.hrtime.bigint() - coldStarted) / 1e6;
  console.log(
    `cold start: module load ${importMs.toFixed(1)} ms; first evaluation needing an SQL grammar ${coldMs.toFixed(1)} ms\n`,
  );

  const byKind = new Map<string, Counts>();
  const all = newCounts();
  for (const entry of RISK_CORPUS) {
    const verdict = evaluateRiskText(entry.text);
    const got = new Set(verdict.rules.map((r) => r.rule));
    const kind = byKind.get(entry.kind ?? 'other') ?? newCounts();
    byKind.set(entry.kind ?? 'other', kind);
    for (const counts of [all, kind]) {
      if (entry.risky && verdict.risky) counts.tp++;
      else if (entry.risky) counts.fn++;
      else if (verdict.risky) counts.fp++;
      else counts.tn++;
      if (entry.rules?.some((r) => !got.has(r))) counts.wrongRule++;
    }
  }
  console.log('confusion matrix (risky = positive)');
  console.log(`  TP=${all.tp}  FN=${all.fn}`);
  console.log(`  FP=${all.fp}  TN=${all.tn}`);
  console.log(`  ${rates(all)}\n`);
  console.log('by class (the original corpus, then the classes added for issue 9)');
  for (const [kind, counts] of byKind)
    console.log(
      `  ${kind.padEnd(24)} risky ${String(counts.tp + counts.fn).padStart(3)}  safe ${String(counts.fp + counts.tn).padStart(3)}  ${rates(counts)}`,
    );
  console.log('');

  const textTasks = texts.map((t) => () => evaluateRiskText(t));
  const argTasks = ARGUMENT_SAMPLES.map((s) => () => evaluateRiskArguments(s.args, s.schema));
  timeEach(WARMUP_ROUNDS, [...textTasks, ...argTasks]);
  const started = Date.now();
  const textRuns = timeEach(MEASURED_ROUNDS, textTasks);
  const argRuns = timeEach(MEASURED_ROUNDS, argTasks);
  const textSamples = sorted(textRuns.flat());
  const argSamples = sorted(argRuns.flat());
  console.log('latency per evaluation (after warm-up), every call');
  report('evaluateRiskText', textSamples);
  report('evaluateRiskArguments', argSamples);
  report('all', sorted([...textSamples, ...argSamples]));
  console.log(
    `\nlatency per input (the median of its ${MEASURED_ROUNDS} calls), over the ${textTasks.length} texts and ${argTasks.length} argument samples`,
  );
  report('evaluateRiskText', medians(textRuns));
  report('evaluateRiskArguments', medians(argRuns));
  report('all', medians([...textRuns, ...argRuns]));
  reportLongTexts();
  await reportLargeCalls();
  console.log(
    `load average at end: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(`\nmeasured in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

void main();
