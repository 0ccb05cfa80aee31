import os from 'node:os';
import { summarize } from './latency';
import { callsPerSecond, LoadSample } from './load-runner';

/** Results of one concurrency level: a sample per path, the baseline path first. */
export interface ComparisonRow {
  callers: number;
  samples: Record<string, LoadSample>;
}

/** A goal stated in an issue, checked against the results. */
export interface BenchGoal {
  label: string;
  /** The measured value (a ratio to the baseline). */
  value: number;
  /** Whether the value meets the goal. */
  met: boolean;
  /** Printed after the value instead of `x` (a ratio) when set, e.g. `ms`. */
  unit?: string;
}

/** The machine and run settings every benchmark prints before its figures. */
export function printSetup(title: string, settings: Record<string, string | number>): void {
  const load = os
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(' ');
  console.log(`# ${title}`);
  console.log(
    `node ${process.version} on ${os.platform()}/${os.arch()}, ${os.cpus()[0]?.model ?? 'unknown cpu'} x${os.cpus().length}, load average ${load}`,
  );
  for (const [key, value] of Object.entries(settings)) console.log(`${key}: ${value}`);
  console.log('');
}

const col = (v: string | number, width: number) => String(v).padStart(width);
const ratio = (v: number) => `${v.toFixed(2)}x`;

/**
 * Prints p50/p99 and calls/s per path and concurrency, with each path's ratios to the first one
 * (latency: lower is better; throughput: higher is better).
 */
export function printComparison(title: string, rows: ComparisonRow[]): void {
  console.log(`## ${title}`);
  console.log(
    `${'callers'.padEnd(8)}${'path'.padEnd(20)}${col('calls', 7)}${col('p50 ms', 9)}${col('p99 ms', 9)}${col('calls/s', 9)}${col('p50 x', 8)}${col('p99 x', 8)}${col('calls/s x', 11)}`,
  );
  for (const row of rows) {
    const [baseName, ...others] = Object.keys(row.samples);
    const base = summarize(row.samples[baseName].latencies);
    const baseRate = callsPerSecond(row.samples[baseName]);
    for (const name of [baseName, ...others]) {
      const s = summarize(row.samples[name].latencies);
      const rate = callsPerSecond(row.samples[name]);
      const ratios =
        name === baseName
          ? [col('-', 8), col('-', 8), col('-', 11)]
          : [col(ratio(s.p50 / base.p50), 8), col(ratio(s.p99 / base.p99), 8), col(ratio(rate / baseRate), 11)];
      console.log(
        `${String(row.callers).padEnd(8)}${name.padEnd(20)}${col(s.n, 7)}${col(s.p50.toFixed(3), 9)}${col(s.p99.toFixed(3), 9)}${col(rate.toFixed(0), 9)}${ratios.join('')}`,
      );
    }
  }
  console.log('');
}

/** `p50 ratio of path to the baseline at the given concurrency`. */
export function p50Ratio(rows: ComparisonRow[], callers: number, path: string): number {
  const row = rows.find((r) => r.callers === callers)!;
  const base = Object.values(row.samples)[0];
  return summarize(row.samples[path].latencies).p50 / summarize(base.latencies).p50;
}

/** `throughput of path / throughput of the baseline at the given concurrency`. */
export function throughputRatio(rows: ComparisonRow[], callers: number, path: string): number {
  const row = rows.find((r) => r.callers === callers)!;
  return callsPerSecond(row.samples[path]) / callsPerSecond(Object.values(row.samples)[0]);
}

/** p50 and throughput ratios of `path` to another baseline than the first one, at every concurrency. */
export function printRatiosTo(rows: ComparisonRow[], basePath: string, path: string): void {
  for (const row of rows) {
    const base = row.samples[basePath];
    const p50 = summarize(row.samples[path].latencies).p50 / summarize(base.latencies).p50;
    const rate = callsPerSecond(row.samples[path]) / callsPerSecond(base);
    console.log(`${path} vs ${basePath} at ${row.callers} caller(s): p50 ${ratio(p50)}, calls/s ${ratio(rate)}`);
  }
}

/**
 * Splits the gateway's p50 overhead over `basePath` into what the floor proxy (one more hop, nothing else)
 * already pays and what the gateway's own work adds, at one concurrency.
 */
export function printFloorShare(
  rows: ComparisonRow[],
  callers: number,
  basePath: string,
  floorPath: string,
  gatewayPath: string,
): void {
  const row = rows.find((r) => r.callers === callers)!;
  const base = summarize(row.samples[basePath].latencies).p50;
  const floor = summarize(row.samples[floorPath].latencies).p50;
  const gateway = summarize(row.samples[gatewayPath].latencies).p50;
  console.log(
    `${gatewayPath} at ${callers} caller(s): p50 ${(gateway - base).toFixed(3)} ms over ${basePath} = ${(floor - base).toFixed(3)} ms the extra hop costs (floor proxy) + ${(gateway - floor).toFixed(3)} ms of the gateway's own work`,
  );
}

/**
 * The gateway's own p50 work (`gatewayPath` minus `floorPath`, the hop it cannot avoid) set against what the
 * database needs at the least (`dbFloorPath`: a bare client making the same read and commits). Returns the gap
 * in ms: what the gateway adds beyond its hop and its database.
 */
export function printDatabaseFloorGap(
  rows: ComparisonRow[],
  callers: number,
  floorPath: string,
  dbFloorPath: string,
  gatewayPath: string,
): number {
  const row = rows.find((r) => r.callers === callers)!;
  const p50 = (path: string) => summarize(row.samples[path].latencies).p50;
  const own = p50(gatewayPath) - p50(floorPath);
  const gap = own - p50(dbFloorPath);
  console.log(
    `${gatewayPath} at ${callers} caller(s): ${own.toFixed(3)} ms of own work = ${p50(dbFloorPath).toFixed(3)} ms the database needs at the least (${dbFloorPath}) + ${gap.toFixed(3)} ms the gateway adds`,
  );
  return gap;
}

/**
 * The gateway set against a bare client that journals its calls (`journaledPath`: the same statements around the
 * same MCP call, no gateway) plus the hop a proxy cannot avoid (`floorPath` - `basePath`): what the gateway's code
 * adds when the database and the tool run as they do inside `act`, one after the other on one machine.
 */
export function printJournaledClientGap(
  rows: ComparisonRow[],
  callers: number,
  basePath: string,
  floorPath: string,
  journaledPath: string,
  gatewayPath: string,
): number {
  const row = rows.find((r) => r.callers === callers)!;
  const p50 = (path: string) => summarize(row.samples[path].latencies).p50;
  const hop = p50(floorPath) - p50(basePath);
  const gap = p50(gatewayPath) - p50(journaledPath) - hop;
  console.log(
    `${gatewayPath} at ${callers} caller(s): p50 ${p50(gatewayPath).toFixed(3)} ms = ${p50(journaledPath).toFixed(3)} ms a bare client journaling its call needs (${journaledPath}) + ${hop.toFixed(3)} ms the extra hop + ${gap.toFixed(3)} ms the gateway adds`,
  );
  return gap;
}

/** Prints each goal as met or missed. */
export function printGoals(goals: BenchGoal[]): void {
  for (const g of goals) {
    const value = g.unit ? `${g.value.toFixed(3)} ${g.unit}` : ratio(g.value);
    console.log(`goal ${g.label}: ${value} ${g.met ? 'MET' : 'MISSED'}`);
  }
  console.log('');
}
