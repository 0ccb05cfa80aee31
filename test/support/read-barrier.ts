/**
 * Makes the first `count` calls of `target[method]` (an async read of a service or repository) wait for one another
 * once they have read, so that `count` concurrent requests all read before any of them writes: what requests on two
 * instances, or on MySQL's connection pool, can do, and what requests of one process on SQLite never do by
 * themselves. Later calls pass straight through. Returns the function that puts the method back.
 */
export function holdReadsTogether<T extends object>(target: T, method: keyof T & string, count: number): () => void {
  const host = target as Record<string, unknown>;
  const original = host[method] as (...args: unknown[]) => Promise<unknown>;
  let read = 0;
  let allRead!: () => void;
  const barrier = new Promise<void>((resolve) => (allRead = resolve));
  host[method] = async (...args: unknown[]) => {
    const value = await original.apply(target, args);
    if (++read === count) allRead();
    await barrier;
    return value;
  };
  return () => {
    host[method] = original;
  };
}
