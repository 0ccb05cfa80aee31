/**
 * The shell variables of one script as far as they can be known: literal values (`CMD="rm -rf"`), names
 * whose value is unknown (`X=$(cmd)`, `read X`, a loop variable, a branch), names filled at run time
 * (which can split into anything when unquoted) and name references (`declare -n`).
 */
export class ShellVariables {
  private readonly known = new Map<string, string>();
  private readonly unknown = new Set<string>();
  private readonly computed = new Set<string>();
  private readonly namerefs = new Set<string>();
  /** True once the script ran code that can set anything (`source f`, `eval ...`). */
  private unknownAll = false;
  /** The names assigned in each open conditional scope (a branch, loop, function or subshell). */
  private readonly scopes: Set<string>[] = [];

  /** The known values, for word resolution. */
  get values(): ReadonlyMap<string, string> {
    return this.known;
  }

  get(name: string): string | undefined {
    return this.known.get(name);
  }

  /** True when the script gave `name` a value nobody here knows (or ran code that can set anything). */
  isUnknown(name: string): boolean {
    return this.unknownAll || this.unknown.has(name);
  }

  /** True when `name` holds what a command produced at run time (or anything may have set it). */
  isComputed(name: string): boolean {
    return this.unknownAll || this.computed.has(name);
  }

  isReference(name: string): boolean {
    return this.namerefs.has(name);
  }

  markReference(name: string): void {
    this.namerefs.add(name);
  }

  /** Sets a known value, or (undefined) makes the name unknown; `computed` when a command produced it. */
  assign(name: string, value: string | undefined, computed = false): void {
    if (value === undefined) {
      this.known.delete(name);
      this.unknown.add(name);
      if (computed) this.computed.add(name);
    } else {
      this.known.set(name, value);
      this.unknown.delete(name);
      this.computed.delete(name);
    }
    this.scopes[this.scopes.length - 1]?.add(name);
  }

  /** Variables set by a command (`read x`, `mapfile a`, `printf -v x`) or a loop (`for x in`): unknown from now on. */
  forget(names: string[], computed = false): void {
    for (const name of names) if (/^[A-Za-z_]\w*$/.test(name)) this.assign(name, undefined, computed);
  }

  /** After `source file` or `eval ...` any variable may hold anything. */
  forgetAll(): void {
    for (const name of this.known.keys()) this.unknown.add(name);
    this.known.clear();
    this.unknownAll = true;
  }

  /** Runs `visit` as a branch that may or may not run (or runs in a subshell): what it assigns is unknown after it. */
  scoped(visit: () => void): void {
    this.scopes.push(new Set());
    try {
      visit();
    } finally {
      const names = this.scopes.pop() ?? new Set<string>();
      for (const name of names) this.assign(name, undefined);
    }
  }
}
