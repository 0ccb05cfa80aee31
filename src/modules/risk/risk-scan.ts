import type { RiskRule } from './risk.types';
import type { RiskMatchSink } from './risk-match.sink';

/** The languages a piece of text can be read in; the interpreter ones come from `python -c`, `node -e` ...; `script` is any other (lua, R, julia ...). */
export type RiskLanguage =
  'auto' | 'shell' | 'sql' | 'python' | 'js' | 'perl' | 'ruby' | 'php' | 'awk' | 'mongo' | 'script';

/** One analyzer per language; each reports into `scan` and calls `scan.nested` for code found inside code. */
export type RiskAnalyzers = Record<RiskLanguage, (text: string, scan: RiskScan) => void>;

/** Nesting depth (bash -c inside ssh inside sudo ...) beyond which the text counts as opaque. */
export const MAX_RISK_DEPTH = 8;

/**
 * Characters of code one evaluation parses, its own text included; past it, nested code (the strings given to `bash -c`,
 * `ssh host ...`, `python -c` at any depth) counts as opaque. Each level can hand almost its whole text down
 * (`ssh h ssh h ... rm`), so without it 100 kB of such text was parsed 8 times over: 5 s of CPU; and text near the
 * parse limit that hands itself down once (`eval eval ... rm`, `bash -c '<250 kB>'`) was parsed twice.
 */
export const MAX_NESTED_CHARS = 256 * 1024;

/**
 * Pieces of nested code one evaluation reads; past it, nested code counts as opaque. Each costs a parse whatever its
 * size (about 50 µs and 20 kB of garbage for `ls`), so 28,000 `sh -c x;` (250 kB) took 3 s of CPU under the
 * character bound. No command line hands this many strings to shells and interpreters.
 */
export const MAX_NESTED_READS = 256;

/** The state of one evaluation: where matches go, how deep the nesting is, how to read nested code. */
export class RiskScan {
  constructor(
    private readonly sink: RiskMatchSink,
    private readonly analyzers: RiskAnalyzers,
    readonly depth = 0,
    /** True for code run once per item of a generated list (`find . -exec sh -c 'rm "$1"' _ {} \;`). */
    readonly many = false,
    /** Shared by every level of one evaluation. */
    private readonly nestedRead = { chars: 0, reads: 0 },
  ) {}

  report(rule: RiskRule, snippet: string): void {
    this.sink.add(rule, snippet);
  }

  /** Reads `text` in `language` one level deeper, e.g. the string given to `bash -c` (`many`: run over a generated list). */
  nested(text: string, language: RiskLanguage, many = false): void {
    this.nestedRead.chars += text.length;
    this.nestedRead.reads++;
    if (
      this.depth + 1 > MAX_RISK_DEPTH ||
      this.nestedRead.chars > MAX_NESTED_CHARS ||
      this.nestedRead.reads > MAX_NESTED_READS
    ) {
      this.report('opaque', text);
      return;
    }
    const inner = new RiskScan(this.sink, this.analyzers, this.depth + 1, many || this.many, this.nestedRead);
    this.analyzers[language](text, inner);
  }

  /** This evaluation at the same depth, for code run once per item of a generated list (the body of `for f in $(ls)`). */
  perItem(): RiskScan {
    return this.many ? this : new RiskScan(this.sink, this.analyzers, this.depth, true, this.nestedRead);
  }

  /** Reads `text` at the current depth (the entry point of an evaluation). */
  read(text: string, language: RiskLanguage): void {
    this.nestedRead.chars += text.length;
    this.analyzers[language](text, this);
  }
}
