/** One call of a measured path; `caller` is the index of the concurrent loop making it (0-based). */
export type BenchCall = (caller: number) => Promise<void>;

/** What one or more load runs of a path measured. */
export interface LoadSample {
  /** Latency of every call (ms). */
  latencies: number[];
  /** Wall time of the runs (ms), summed over rounds. */
  wallMs: number;
  /** CPU time (ms) the path's own process used during the path's turns only, summed (when its reader was given). */
  cpuMs?: number;
}

/** Calls per second of a sample. */
export const callsPerSecond = (s: LoadSample): number => (s.latencies.length * 1000) / s.wallMs;

/** CPU time (ms) per call of a sample whose process CPU was read (see {@link compareSideBySide}). */
export const cpuMsPerCall = (s: LoadSample): number | undefined =>
  s.cpuMs === undefined ? undefined : s.cpuMs / s.latencies.length;

/** Makes `total` calls with `callers` concurrent loops (each waits for its previous call) and times each. */
async function runLoad(call: BenchCall, callers: number, total: number): Promise<LoadSample> {
  const latencies: number[] = [];
  let issued = 0;
  const loop = async (caller: number) => {
    while (issued < total) {
      issued++;
      const t0 = performance.now();
      await call(caller);
      latencies.push(performance.now() - t0);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: callers }, (_v, i) => loop(i)));
  return { latencies, wallMs: performance.now() - start };
}

/**
 * Measures the paths side by side: `total` calls each, in `rounds` slices that alternate the order
 * (A B, B A, ...), so drift in the machine's load hits every path alike. `cpuOf` reads, for a path served by a process
 * of its own (a gateway), that process's CPU time (ms): it is read around the path's own slices only, so the CPU per
 * call leaves out what the process spends idle while the other paths run.
 */
export async function compareSideBySide(
  paths: Record<string, BenchCall>,
  callers: number,
  total: number,
  rounds: number,
  cpuOf: Record<string, () => number> = {},
): Promise<Record<string, LoadSample>> {
  const names = Object.keys(paths);
  const merged: Record<string, LoadSample> = Object.fromEntries(names.map((n) => [n, { latencies: [], wallMs: 0 }]));
  const perRound = Math.ceil(total / rounds);
  for (let r = 0; r < rounds; r++) {
    for (const name of r % 2 === 0 ? names : [...names].reverse()) {
      const cpuBefore = cpuOf[name]?.();
      const sample = await runLoad(paths[name], callers, Math.min(perRound, total - r * perRound));
      if (cpuBefore !== undefined) merged[name].cpuMs = (merged[name].cpuMs ?? 0) + cpuOf[name]() - cpuBefore;
      merged[name].latencies.push(...sample.latencies);
      merged[name].wallMs += sample.wallMs;
    }
  }
  return merged;
}

/** Untimed calls on every path, at 8 and then 1 caller, so JIT, sessions and connection pools are warm. */
export async function warmUp(paths: Record<string, BenchCall>, calls: number): Promise<void> {
  for (const call of Object.values(paths)) {
    await runLoad(call, 8, Math.ceil(calls / 2));
    await runLoad(call, 1, Math.ceil(calls / 2));
  }
}
