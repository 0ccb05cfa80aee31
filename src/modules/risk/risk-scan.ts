import type { RiskRule } from './risk.types';
import { RiskMatchSink } from './risk-match.sink';
import type { ShellParseBudget } from './risk-shell-statements.parser';

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

/**
 * Statements, words and literals the shell parser may make in one evaluation, its text and nested code together; past
 * it the text is too complex to judge and counts as opaque. Parsing and reading cost about 5-20 µs a node: 256 Ki
 * characters of short statements (`rm a`, `a;`, `a|`) made 150,000-400,000 of them, 0.6-1.5 s of CPU on the main thread.
 * Scripts an agent runs make a few hundred; 3,000 lines of `rm -rf /dN/x; ` make 21,000.
 */
export const MAX_PARSED_SHELL_NODES = 32_768;

/**
 * Work one evaluation has done, shared by every level of it, and by every string of one call's arguments: a call of
 * many strings gets the bounds of one text, not of each string.
 */
export interface EvaluationWork extends ShellParseBudget {
  chars: number;
  reads: number;
}

/** The bounds of one evaluation, none spent yet. */
export function newEvaluationWork(): EvaluationWork {
  return { chars: 0, reads: 0, nodesLeft: MAX_PARSED_SHELL_NODES };
}

/** The state of one evaluation: where matches go, how deep the nesting is, how to read nested code. */
export class RiskScan {
  constructor(
    private readonly sink: RiskMatchSink,
    private readonly analyzers: RiskAnalyzers,
    readonly depth = 0,
    /** True for code run once per item of a generated list (`find . -exec sh -c 'rm "$1"' _ {} \;`). */
    readonly many = false,
    /** Shared by every level of one evaluation. */
    private readonly nestedRead: EvaluationWork = newEvaluationWork(),
  ) {}

  /** What this evaluation may still spend on parsing shell. */
  get shellBudget(): ShellParseBudget {
    return this.nestedRead;
  }

  /**
   * This scan with its matches held back until `commit` (dropped without it): for reading text as shell statement by
   * statement, which may prove not to be shell after some statements were read.
   */
  held(): { scan: RiskScan; commit(): void } {
    const sink = new RiskMatchSink();
    const scan = new RiskScan(sink, this.analyzers, this.depth, this.many, this.nestedRead);
    return {
      scan,
      commit: () => {
        for (const match of sink.verdict().rules) this.sink.add(match.rule, match.match);
      },
    };
  }

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
