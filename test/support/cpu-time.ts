/**
 * Runs `fn` and measures the CPU time (user + system, ms) this process used meanwhile. Tests that guard against
 * super-linear work (regex backtracking, a schema that blows up when inlined) assert on this instead of on wall
 * time: the defects they guard against cost seconds to minutes of CPU, while a loaded machine (two cores shared
 * with other test workers, MariaDB and child processes) stretches wall time several-fold and made such tests fail
 * with nothing wrong. Only for synchronous work, which nothing else in this process interleaves with.
 */
export function cpuTimed<T>(fn: () => T): { value: T; cpuMs: number } {
  const before = process.cpuUsage();
  const value = fn();
  const used = process.cpuUsage(before);
  return { value, cpuMs: (used.user + used.system) / 1000 };
}
