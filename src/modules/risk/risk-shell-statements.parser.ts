import type { GoNode } from './risk-shell.parser';

/**
 * Streams a shell script's top-level statements out of mvdan-sh's Go parser (`Parser.Stmts`), within a budget of
 * syntax nodes. See risk-shell.parser.ts for why the GopherJS internals are used.
 *
 * Why: `Parse` built the whole tree first (about 1 kB a statement, 50 MB for 256 Ki characters of `rm a`, which the
 * garbage collector copied as it grew), and its cost grew with the text whatever the text was: 0.6-1.5 s of CPU for
 * 256 Ki characters of short statements, words or pipes, during which the process served nothing else. Streamed,
 * each statement is read while its tree is young, and the parse stops as soon as the budget is spent.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- mvdan-sh ships no types and no ES module
const mvdan = require('mvdan-sh') as {
  syntax: { NewParser(): { Parse(src: string, name: string): unknown; readonly __internal_object__: GoParserWrapper } };
};

interface GoParserWrapper {
  readonly Parser: GoParser;
}

/** The Go `*syntax.Parser`: `Stmts(reader, fn)`, and the methods that allocate the nodes the budget counts. */
interface GoParser {
  readonly src: GoReader;
  Stmts(src: GoReader, fn: (stmt: GoNode) => boolean): unknown;
  stmt(pos: unknown): unknown;
  word(parts: unknown): unknown;
  lit(pos: unknown, value: unknown): unknown;
}

/** The Go `*strings.Reader` a parse reads from; `Reset` points it at another (Go, so UTF-8 byte) string. */
interface GoReader {
  Reset(text: string): void;
}

/** What one evaluation may still spend on shell parsing, shared by every text it parses (nested code included). */
export interface ShellParseBudget {
  /** Statements, words and literals the parser may still make. */
  nodesLeft: number;
}

/** How reading a script ended: every statement read, not valid shell, or the budget spent before its end. */
export type ShellParseOutcome = 'parsed' | 'invalid' | 'over-budget';

/** Thrown from inside the parser when the budget is spent: it unwinds the Go frames, and the next parse resets them. */
const OVER_BUDGET = new Error('shell parse budget spent');

/** One Go parser with its own budget; reading nested code (`bash -c '...'`) while a parse streams takes another. */
class StatementParser {
  private budget: ShellParseBudget = { nodesLeft: Infinity };
  private readonly go: GoParser;
  private readonly reader: GoReader;
  private readonly noError: unknown;

  constructor() {
    const wrapper = mvdan.syntax.NewParser();
    // A first parse leaves the Go parser holding a strings.Reader, reused for every later text.
    wrapper.Parse('', '');
    this.go = wrapper.__internal_object__.Parser;
    this.reader = this.go.src;
    const go = Object.getPrototypeOf(this.go) as GoParser;
    // Own properties shadow the prototype's methods the parser calls on itself, for this parser only.
    const spend = (): void => {
      if (--this.budget.nodesLeft < 0) throw OVER_BUDGET;
    };
    Object.assign(this.go, {
      stmt(this: GoParser, pos: unknown) {
        spend();
        return go.stmt.call(this, pos);
      },
      word(this: GoParser, parts: unknown) {
        spend();
        return go.word.call(this, parts);
      },
      lit(this: GoParser, pos: unknown, value: unknown) {
        spend();
        return go.lit.call(this, pos, value);
      },
    });
    this.noError = this.stream('', () => true);
  }

  read(text: string, onStatement: (stmt: GoNode) => void, budget: ShellParseBudget): ShellParseOutcome {
    this.budget = budget;
    let failed: { error: unknown } | undefined;
    try {
      const error = this.stream(text, (stmt) => {
        try {
          onStatement(stmt);
        } catch (thrown) {
          failed = { error: thrown };
          throw thrown;
        }
      });
      return error === this.noError ? 'parsed' : 'invalid';
    } catch (error) {
      // What reading a statement threw is the caller's; what the parser threw (stack depth on hostile nesting) means
      // the text cannot be read as shell.
      if (failed) throw failed.error;
      return error === OVER_BUDGET ? 'over-budget' : 'invalid';
    } finally {
      // Idle parsers hold neither the budget nor the text.
      this.budget = { nodesLeft: 0 };
      this.reader.Reset('');
    }
  }

  private stream(text: string, onStatement: (stmt: GoNode) => void): unknown {
    // Go strings are UTF-8 bytes, one per JS char (positions are byte offsets, as ShellSource reads them).
    // eslint-disable-next-line no-control-regex -- any character beyond ASCII
    this.reader.Reset(/[^\x00-\x7f]/.test(text) ? Buffer.from(text, 'utf8').toString('latin1') : text);
    return this.go.Stmts(this.reader, (stmt) => {
      onStatement(stmt);
      return true;
    });
  }
}

const idle: StatementParser[] = [];

/**
 * Parses a shell script (bash dialect) one top-level statement at a time, handing each to `onStatement` as soon as it
 * is parsed; `budget` is spent on every node made. 'invalid' may come after some statements were handed over.
 */
export function readShellStatements(
  text: string,
  onStatement: (stmt: GoNode) => void,
  budget: ShellParseBudget,
): ShellParseOutcome {
  const parser = idle.pop() ?? new StatementParser();
  try {
    return parser.read(text, onStatement, budget);
  } finally {
    idle.push(parser);
  }
}
