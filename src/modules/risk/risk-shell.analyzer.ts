import { MAX_PARSED_SHELL_NODES, RiskScan } from './risk-scan';
import type { ShellCommandEnv, ShellStdin } from './risk-shell-command';
import { checkCommand } from './risk-shell-commands.registry';
import { scanUnparsedShell } from './risk-shell-fallback.scanner';
import { GoNode, ShellSource, nodeField, nodeKind, nodeList } from './risk-shell.parser';
import { ShellParseOutcome, readShellStatements } from './risk-shell-statements.parser';
import { ShellScriptState, StdinOrigin } from './risk-shell-script.state';
import { BLOCK_DEVICE, SHELL_CHILD_FIELDS, ShellOp, WRITE_OPS } from './risk-shell.syntax';
import { isForkBomb } from './risk-shell-fork-bomb';
import type { ShellWord } from './risk-shell-word';
import { isSystemWord } from './risk-system-paths';
import { COMMAND_VARIABLES } from './risk-command-settings';
import { MAX_WRAPPED_COMMANDS, runCodeWord } from './risk-shell-command';

/** Builtins that set the variables named in their arguments to what they read. */
const VARIABLE_READERS = new Set(['read', 'mapfile', 'readarray', 'getopts']);

/** Reads shell text: parse with mvdan-sh, walk every statement, check every simple command. */
export function analyzeShell(text: string, scan: RiskScan): void {
  if (readScript(text, scan) !== 'invalid') return;
  const lines = text.split('\n');
  if (lines.length < 2 || lines.length > 500) {
    scanUnparsedShell(text, scan);
    return;
  }
  // One bad line (prose, a typo) should not hide the commands on the others.
  for (const line of lines) {
    if (!line.trim()) continue;
    const outcome = readScript(line, scan);
    // Reported once: the lines after it would each be too complex as well.
    if (outcome === 'over-budget') return;
    if (outcome === 'invalid') scanUnparsedShell(line, scan);
  }
}

/**
 * Reads `text` as one script, each statement as soon as it is parsed; nothing is reported when it proves not to be
 * valid shell. A script whose parse would spend more than the evaluation's budget is too complex to judge: opaque.
 */
function readScript(text: string, scan: RiskScan): ShellParseOutcome {
  const held = scan.held();
  const walker = new ShellWalker(new ShellScriptState(new ShellSource(text)), held.scan);
  const outcome = readShellStatements(text, (stmt) => walker.visit(stmt), scan.shellBudget);
  if (outcome === 'invalid') return outcome;
  held.commit();
  if (outcome === 'over-budget') scan.report('opaque', `${TOO_COMPLEX}: ${text}`);
  return outcome;
}

const TOO_COMPLEX = `too complex to judge (more than ${MAX_PARSED_SHELL_NODES.toLocaleString('en')} syntax nodes), treated as risky`;

/** Walks one parsed script in execution order, so that variables and written files are known when used. */
class ShellWalker {
  private readonly source: ShellSource;

  constructor(
    private readonly script: ShellScriptState,
    private scan: RiskScan,
  ) {
    this.source = script.source;
  }

  /** Generic descent: finds statements and the code inside substitutions wherever they are. */
  visit(node: GoNode | undefined): void {
    const kind = nodeKind(node);
    if (!kind || !node) return;
    if (kind === 'Stmt') return this.stmt(node, undefined);
    if (kind === 'CmdSubst') return this.stmts(node.Stmts, undefined);
    if (kind === 'ProcSubst') {
      // `>(cmd)` feeds cmd with output nobody here can see.
      return this.stmts(node.Stmts, node.Op === ShellOp.PROC_OUT ? { unknown: this.source.of(node) } : undefined);
    }
    for (const field of SHELL_CHILD_FIELDS[kind] ?? []) {
      const child = node[field];
      if (child && typeof child === 'object' && '$array' in child) nodeList(child).forEach((c) => this.visit(c));
      else this.visit(nodeField(node, field));
    }
  }

  private stmts(list: unknown, stdin: StdinOrigin | undefined): void {
    for (const st of nodeList(list)) this.stmt(st, stdin);
  }

  private stmt(st: GoNode, stdin: StdinOrigin | undefined): void {
    for (const redirect of nodeList(st.Redirs)) {
      this.visit(redirect);
      this.checkWrite(redirect, st);
    }
    const cmd = nodeField(st, 'Cmd');
    const kind = nodeKind(cmd);
    if (!cmd) return;
    if (kind === 'CallExpr') return this.call(cmd, st, stdin);
    if (kind === 'BinaryCmd') {
      const x = nodeField(cmd, 'X');
      const y = nodeField(cmd, 'Y');
      const piped = cmd.Op === ShellOp.PIPE || cmd.Op === ShellOp.PIPE_ALL;
      // Each side of a pipe runs in a subshell; the right side of && / || may not run at all.
      if (x && piped) this.script.variables.scoped(() => this.stmt(x, stdin));
      else if (x) this.stmt(x, stdin);
      if (y) this.script.variables.scoped(() => this.stmt(y, piped && x ? { pipeFrom: x, pipeline: cmd } : stdin));
      return;
    }
    if (kind === 'Block') return this.stmts(cmd.Stmts, stdin);
    if (kind === 'Subshell') return this.script.variables.scoped(() => this.stmts(cmd.Stmts, stdin));
    if (kind === 'DeclClause') {
      this.checkCommandVariables(nodeList(cmd.Args), st, stdin);
      this.script.remember(nodeList(cmd.Args));
      return this.visit(cmd);
    }
    if (isForkBomb(cmd)) this.scan.report('fork-bomb', this.source.of(st));
    const loop = kind === 'ForClause' ? nodeField(cmd, 'Loop') : undefined;
    const perItem = this.loopsOverGeneratedList(cmd, kind, st, stdin);
    this.script.variables.scoped(() => {
      const variable = loop && nodeKind(loop) === 'WordIter' ? nodeField(loop, 'Name') : undefined;
      if (variable) this.script.variables.forget([String(variable.Value)]);
      if (!perItem) return this.visit(cmd);
      // The list is made once; the body runs once per item, as `... | xargs CMD` runs CMD.
      this.visit(nodeField(cmd, kind === 'ForClause' ? 'Loop' : 'Cond'));
      const outer = this.scan;
      this.scan = outer.perItem();
      try {
        this.stmts(cmd.Do, undefined);
      } finally {
        this.scan = outer;
      }
    });
  }

  /**
   * A loop over a list generated at run time: `for f in $(ls)` (an unquoted substitution or another word that
   * spreads), or `while read f` fed by a command, a process substitution or a file (`< <(ls)`, `ls | while ...`).
   */
  private loopsOverGeneratedList(
    cmd: GoNode,
    kind: string | undefined,
    st: GoNode,
    stdin: StdinOrigin | undefined,
  ): boolean {
    if (kind === 'ForClause') {
      const loop = nodeField(cmd, 'Loop');
      if (!loop || nodeKind(loop) !== 'WordIter') return false;
      return nodeList(loop.Items).some((item) => this.script.expand(item).some((w) => w.spreads));
    }
    if (kind !== 'WhileClause' || cmd.Until) return false;
    const reads = nodeList(cmd.Cond).some((c) => {
      const call = nodeField(c, 'Cmd');
      const name = call && nodeKind(call) === 'CallExpr' ? nodeList(call.Args)[0] : undefined;
      return name !== undefined && this.script.word(name).value === 'read';
    });
    return reads && this.script.stdinOf(st, stdin).kind === 'opaque';
  }

  private call(call: GoNode, st: GoNode, stdin: StdinOrigin | undefined): void {
    const assigns = nodeList(call.Assigns);
    assigns.forEach((a) => this.visit(a));
    this.checkCommandVariables(assigns, st, stdin);
    const words = nodeList(call.Args);
    words.forEach((w) => this.visit(w));
    if (!words.length) {
      this.script.remember(assigns);
      return;
    }
    const argv = this.script.unalias(words.flatMap((w) => this.script.expand(w)));
    if (argv[0]?.value === 'alias') this.script.defineAliases(argv.slice(1));
    // `hash -p /bin/rm name` makes `name` run rm.
    if (argv[0]?.value === 'hash' && argv[1]?.value === '-p' && argv[3])
      this.script.defineAliases([{ ...argv[3], value: `${argv[3].value}=${argv[2].value}` }]);
    if (argv.length) checkCommand(argv, this.env(st, stdin));
    this.script.recordWrites(st, argv);
    this.recordAssignments(argv);
  }

  /** `GIT_SSH_COMMAND='...' git fetch`, `export PAGER=...`: a value some program will run as a command line. */
  private checkCommandVariables(assigns: GoNode[], st: GoNode, stdin: StdinOrigin | undefined): void {
    for (const assign of assigns) {
      const name = nodeField(assign, 'Name');
      const value = nodeField(assign, 'Value');
      if (name && value && COMMAND_VARIABLES.has(String(name.Value)))
        runCodeWord(this.script.word(value), 'shell', this.env(st, stdin));
    }
  }

  /** Commands that set variables to values read at run time, or that can set anything. */
  private recordAssignments(argv: ShellWord[]): void {
    const name = argv[0]?.literal ? argv[0].value : '';
    const args = argv.slice(1).map((w) => w.value);
    if (VARIABLE_READERS.has(name)) this.script.variables.forget(args, true);
    else if (name === 'unset') this.script.variables.forget(args);
    else if (name === 'cd' || name === 'pushd')
      this.script.changeDirectory(argv.slice(1).filter((w) => !/^-[LPe@]+$/.test(w.value)));
    else if (name === 'printf' && args[0] === '-v') this.script.variables.forget(args.slice(1, 2), true);
    else if (name === 'source' || name === '.' || name === 'eval') this.script.variables.forgetAll();
  }

  private env(st: GoNode, origin: StdinOrigin | undefined): ShellCommandEnv {
    const snippet = this.source.of(st);
    const cwd = this.script.cwd();
    const make = (stdin: () => ShellStdin, many: boolean, wrapped = 0): ShellCommandEnv => ({
      scan: this.scan,
      snippet,
      stdin,
      many,
      run: (argv: ShellWord[], withStdin = true, runsMany = false) => {
        if (!argv.length) return;
        if (wrapped >= MAX_WRAPPED_COMMANDS) return this.scan.report('opaque', snippet);
        checkCommand(argv, make(withStdin ? stdin : () => ({ kind: 'none' }), many || runsMany, wrapped + 1));
      },
      fileText: (path: string) => this.script.fileText(path),
      cwd,
    });
    return make(() => this.script.stdinOf(st, origin), this.scan.many);
  }

  /** `> /dev/sda` overwrites a disk; `> /etc/passwd`, `>> /etc/sudoers` change the system. */
  private checkWrite(redirect: GoNode, st: GoNode): void {
    const word = nodeField(redirect, 'Word');
    if (!word || !WRITE_OPS.has(redirect.Op)) return;
    const written = this.script.word(word);
    const target = written.value;
    const appends = redirect.Op === ShellOp.APP_OUT || redirect.Op === ShellOp.APP_ALL;
    if (BLOCK_DEVICE.test(target)) {
      if (!appends) this.scan.report('disk-wipe', this.source.of(st));
    } else if (isSystemWord(written, this.script.cwd())) {
      this.scan.report('system-file-overwrite', this.source.of(st));
    }
  }
}
