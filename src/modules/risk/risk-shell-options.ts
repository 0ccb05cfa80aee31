import type { ShellWord } from './risk-shell-word';

/** How a command reads its options (getopt conventions). */
export interface OptionSpec {
  /** Short option letters that take a value, attached (`-n1`) or as the next word (`-n 1`). */
  readonly withValue?: string;
  /** Short option letters whose value can only be attached (`-psecret`, `-i.bak`): the rest of the cluster, never the next word. */
  readonly attachedValue?: string;
  /** Short option letters that may be followed by digits only (`perl -l`, `-0777`): `-le` is `-l -e`. */
  readonly attachedDigits?: string;
  /** Long options (without `--`) that take the next word as value when not written `--name=value`. */
  readonly longWithValue?: readonly string[];
  /** Stop at the first operand, as wrappers do (`sudo -u x rm -rf` → options end at `rm`). */
  readonly stopAtOperand?: boolean;
  /** Words like `-10` (nice) or `+x` (bash) that are options without letters to read. */
  readonly signedNumbers?: boolean;
}

/** The options and operands of one command line. */
export interface ParsedOptions {
  /** Short option letters seen, including those inside clusters like `-rf`. */
  readonly short: Set<string>;
  /** Long option names seen, without `--` and without `=value`. */
  readonly long: Set<string>;
  /** Option values keyed by letter or long name, in order. */
  readonly values: Map<string, ShellWord[]>;
  /** Operands before `--` (all of them unless `stopAtOperand`). */
  readonly operands: ShellWord[];
  /** Operands after `--`. */
  readonly afterDashDash: ShellWord[];
  /** With `stopAtOperand`: the first operand and everything after it (the wrapped command). */
  readonly rest: ShellWord[];
  readonly dashDash: boolean;
}

/** Parses `args` (without the command name) the getopt way. */
export function parseOptions(args: readonly ShellWord[], spec: OptionSpec = {}): ParsedOptions {
  const out: ParsedOptions = {
    short: new Set(),
    long: new Set(),
    values: new Map(),
    operands: [],
    afterDashDash: [],
    rest: [],
    dashDash: false,
  };
  const withValue = spec.withValue ?? '';
  const attachedValue = spec.attachedValue ?? '';
  const attachedDigits = spec.attachedDigits ?? '';
  const longWithValue = spec.longWithValue ?? [];
  // In place: copying the list on each value made 20,000 repeated options (`git -c k=v -c ...`) cost 14 s.
  const setValue = (key: string, word: ShellWord | undefined) => {
    if (!word) return;
    const values = out.values.get(key);
    if (values) values.push(word);
    else out.values.set(key, [word]);
  };
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    const text = word.value;
    if (text === '--') {
      (out as { dashDash: boolean }).dashDash = true;
      out.afterDashDash.push(...args.slice(i + 1));
      if (spec.stopAtOperand) out.rest.push(...args.slice(i + 1));
      return out;
    }
    if (text.startsWith('--') && text.length > 2) {
      const eq = text.indexOf('=');
      const name = eq < 0 ? text.slice(2) : text.slice(2, eq);
      out.long.add(name);
      if (eq >= 0) setValue(name, { ...word, value: text.slice(eq + 1) });
      else if (longWithValue.includes(name)) setValue(name, args[++i]);
      continue;
    }
    if (spec.signedNumbers && /^[-+]\d+$/.test(text)) continue;
    if (text.length > 1 && (text[0] === '-' || (spec.signedNumbers && text[0] === '+'))) {
      for (let j = 1; j < text.length; j++) {
        const letter = text[j];
        out.short.add(letter);
        if (attachedDigits.includes(letter)) {
          while (/[0-9]/.test(text[j + 1] ?? '')) j++;
          continue;
        }
        if (attachedValue.includes(letter)) {
          if (j + 1 < text.length) setValue(letter, { ...word, value: text.slice(j + 1) });
          break;
        }
        if (withValue.includes(letter)) {
          const attached = text.slice(j + 1);
          setValue(letter, attached ? { ...word, value: attached } : args[++i]);
          break;
        }
      }
      continue;
    }
    if (spec.stopAtOperand) {
      out.rest.push(...args.slice(i));
      out.operands.push(word);
      return out;
    }
    out.operands.push(word);
  }
  return out;
}

/** The last value of an option given by letter or long names. */
export function optionValue(parsed: ParsedOptions, ...keys: string[]): ShellWord | undefined {
  for (const key of keys) {
    const values = parsed.values.get(key);
    if (values?.length) return values[values.length - 1];
  }
  return undefined;
}

/**
 * True when any of the letters or long names was given. A long name is also given by a prefix of it, as getopt_long
 * reads one (`rm --rec` is `rm --recursive`); a prefix the command finds ambiguous makes it refuse to run at all.
 */
export function hasOption(parsed: ParsedOptions, letters: string, ...longNames: string[]): boolean {
  for (const letter of letters) if (parsed.short.has(letter)) return true;
  return longNames.some((name) => [...parsed.long].some((given) => given !== '' && name.startsWith(given)));
}
