/** Latency statistics for the benchmarks (milliseconds). */
export interface LatencySummary {
  n: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
}

export function summarize(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  const mean = sorted.reduce((s, v) => s + v, 0) / Math.max(1, sorted.length);
  return { n: sorted.length, p50: at(0.5), p99: at(0.99), mean, max: sorted[sorted.length - 1] ?? 0 };
}

/** Times `fn` `rounds` times after `warmup` untimed runs, one at a time. */
export async function timeSequential(rounds: number, warmup: number, fn: () => unknown): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return samples;
}

export const ms = (v: number) => v.toFixed(3).padStart(9);

export function formatSummary(label: string, s: LatencySummary): string {
  return `${label.padEnd(34)} n=${String(s.n).padStart(5)}  p50=${ms(s.p50)} ms  p99=${ms(s.p99)} ms  mean=${ms(s.mean)} ms  max=${ms(s.max)} ms`;
}
