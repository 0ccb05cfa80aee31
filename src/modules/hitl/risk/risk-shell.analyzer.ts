import type { RiskScan } from './risk-scan';
import type { ShellCommandEnv } from './risk-shell-command';
import { checkCommand } from './risk-shell-commands.registry';
import { scanUnparsedShell } from './risk-shell-fallback.scanner';
import { GoNode, ShellSource, nodeField, nodeKind, nodeList, parseShell } from './risk-shell.parser';
import { ShellScriptState, StdinOrigin } from './risk-shell-script.state';
import { BLOCK_DEVICE, SHELL_CHILD_FIELDS, ShellOp } from './risk-shell.syntax';
import type { ShellWord } from './risk-shell-word';

/** Reads shell text: parse with mvdan-sh, walk every statement, check every simple command. */
export function analyzeShell(text: string, scan: RiskScan): void {
  const file = parseShell(text);
  if (file) {
    new ShellWalker(new ShellScriptState(new ShellSource(text)), scan).visit(file);
    return;
  }
  const lines = text.split('\n');
  if (lines.length < 2 || lines.length > 500) {
    scanUnparsedShell(text, scan);
    return;
  }
  // One bad line (prose, a typo) should not hide the commands on the others.
  for (const line of lines) {
    if (!line.trim()) continue;
    const lineFile = parseShell(line);
    if (lineFile) new ShellWalker(new ShellScriptState(new ShellSource(line)), scan).visit(lineFile);
    else scanUnparsedShell(line, scan);
  }
}

/** Walks one parsed script in execution order, so that variables and written files are known when used. */
class ShellWalker {
  private readonly source: ShellSource;

  constructor(
    private readonly script: ShellScriptState,
    private readonly scan: RiskScan,
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
      this.checkDeviceWrite(redirect, st);
    }
    const cmd = nodeField(st, 'Cmd');
    const kind = nodeKind(cmd);
    if (!cmd) return;
    if (kind === 'CallExpr') return this.call(cmd, st, stdin);
    if (kind === 'BinaryCmd') {
      const x = nodeField(cmd, 'X');
      const y = nodeField(cmd, 'Y');
      const piped = cmd.Op === ShellOp.PIPE || cmd.Op === ShellOp.PIPE_ALL;
      if (x) this.stmt(x, stdin);
      if (y) this.stmt(y, piped && x ? { pipeFrom: x, pipeline: cmd } : stdin);
      return;
    }
    if (kind === 'Subshell' || kind === 'Block') return this.stmts(cmd.Stmts, stdin);
    if (kind === 'DeclClause') this.script.remember(nodeList(cmd.Args));
    this.visit(cmd);
  }

  private call(call: GoNode, st: GoNode, stdin: StdinOrigin | undefined): void {
    const assigns = nodeList(call.Assigns);
    assigns.forEach((a) => this.visit(a));
    const words = nodeList(call.Args);
    words.forEach((w) => this.visit(w));
    if (!words.length) {
      this.script.remember(assigns);
      return;
    }
    const argv = this.script.unalias(words.flatMap((w) => this.script.expand(w)));
    if (argv[0]?.value === 'alias') this.script.defineAliases(argv.slice(1));
    if (argv.length) checkCommand(argv, this.env(st, stdin));
    this.script.recordWrites(st, argv);
  }

  private env(st: GoNode, origin: StdinOrigin | undefined): ShellCommandEnv {
    const env: ShellCommandEnv = {
      scan: this.scan,
      snippet: this.source.of(st),
      stdin: () => this.script.stdinOf(st, origin),
      run: (argv: ShellWord[], withStdin = true) => {
        if (argv.length) checkCommand(argv, withStdin ? env : { ...env, stdin: () => ({ kind: 'none' }) });
      },
      fileText: (path: string) => this.script.fileText(path),
    };
    return env;
  }

  /** `> /dev/sda` overwrites a disk. */
  private checkDeviceWrite(redirect: GoNode, st: GoNode): void {
    if (redirect.Op !== ShellOp.RDR_OUT && redirect.Op !== ShellOp.RDR_ALL && redirect.Op !== ShellOp.CLB_OUT) return;
    const word = nodeField(redirect, 'Word');
    if (word && BLOCK_DEVICE.test(this.script.word(word).value)) this.scan.report('disk-wipe', this.source.of(st));
  }
}
