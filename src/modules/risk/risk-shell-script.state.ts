import { DECODER_PATTERN, ShellStdin } from './risk-shell-command';
import { GoNode, ShellSource, goString, nodeField, nodeKind, nodeList } from './risk-shell.parser';
import { ShellOp, WRITE_OPS } from './risk-shell.syntax';
import { SIMPLE_ESCAPES, ShellWord, literalWord, plainParamName, resolveWord, windowsPath } from './risk-shell-word';
import { ShellVariables } from './risk-shell-variables';
import { normalizePath as absolutePath } from './risk-system-paths';

/** Where a statement's stdin comes from: the producer of a pipe, or an unknown process (`>(...)`). */
export type StdinOrigin = { pipeFrom: GoNode; pipeline: GoNode } | { unknown: string };

/** PowerShell's `-OutFile` (Invoke-WebRequest, Invoke-RestMethod): a Windows path. */
const OUT_FILE = /^-outf(?:ile)?$/i;

/** Downloads leave files whose content is unknown: `curl -o f`, `wget -O f`, `iwr URL -OutFile f`. */
const DOWNLOAD_TARGET: Record<string, RegExp> = {
  curl: /^(?:-o|--output)$/,
  wget: /^(?:-O|--output-document)$/,
  'invoke-webrequest': OUT_FILE,
  iwr: OUT_FILE,
  'invoke-restmethod': OUT_FILE,
  irm: OUT_FILE,
};

/**
 * What one script knows as it runs, statement after statement: its variables (see {@link ShellVariables}),
 * aliases, working directory, files it wrote (`echo ... > x.sh`) and what each command reads on stdin.
 */
export class ShellScriptState {
  readonly variables = new ShellVariables();
  private readonly aliases = new Map<string, string>();
  /** File text, or null when the script wrote or downloaded something unknown there. */
  private readonly files = new Map<string, string | null>();

  constructor(readonly source: ShellSource) {}

  word(word: GoNode, heredoc = false): ShellWord {
    return resolveWord(word, this.source, this.variables.values, heredoc);
  }

  /**
   * A word as the shell would pass it: known variables substituted (an unquoted `$X` splits into words on
   * IFS) and unquoted brace lists expanded (`{rm,-rf,/}` is three words). A word that is not literal but
   * provably names one program (`"$HOME/bin/x"`) carries that name in `commandName`.
   */
  expand(word: GoNode): ShellWord[] {
    const parts = nodeList(word.Parts);
    const name = parts.length === 1 ? plainParamName(parts[0]) : undefined;
    const value = name === undefined ? undefined : this.variables.get(name);
    if (value !== undefined) {
      if (this.variables.isUnknown('IFS')) return [{ ...this.word(word), value: this.source.of(word), literal: false }];
      return splitWords(value, this.variables.get('IFS'));
    }
    const resolved = this.word(word);
    if (!resolved.literal) return [this.withCommandName(this.withSpread(resolved, parts, name))];
    if (parts.length > 1 && parts.some((p) => this.splitsWhenExpanded(p))) return [{ ...resolved, literal: false }];
    const braces = parts.length === 1 && nodeKind(parts[0]) === 'Lit' ? BRACE_LIST.exec(resolved.value) : null;
    if (!braces)
      return [
        parts.some((p) => nodeKind(p) === 'Lit' && GLOB.test(goString(p.Value)))
          ? { ...resolved, glob: true }
          : resolved,
      ];
    return braces[2].split(',').map((item) => literalWord(braces[1] + item + braces[3]));
  }

  /** Expands an alias defined earlier in the script (`alias x='rm -rf /'; x`). */
  unalias(argv: ShellWord[]): ShellWord[] {
    const alias = argv[0]?.literal ? this.aliases.get(argv[0].value) : undefined;
    return alias === undefined ? argv : [...splitWords(alias), ...argv.slice(1)];
  }

  /** `alias name='value' ...` */
  defineAliases(args: ShellWord[]): void {
    for (const arg of args) {
      const eq = arg.value.indexOf('=');
      if (eq > 0 && arg.literal) this.aliases.set(arg.value.slice(0, eq), arg.value.slice(eq + 1));
    }
  }

  /**
   * `X=literal`, `X+=literal` (also `export` / `local X=...`): later `$X` resolves to it; anything else makes X
   * unknown. `declare -n` (a flag among the arguments) makes the names references, unknown from then on.
   */
  remember(assigns: GoNode[]): void {
    const flags = assigns
      .filter((a) => a.Naked && !nodeField(a, 'Name'))
      .map((a) => this.word(nodeField(a, 'Value') ?? a).value);
    const references = flags.some((f) => /^-[a-zA-Z]*n/.test(f));
    for (const assign of assigns) {
      const name = nodeField(assign, 'Name');
      if (!name) continue;
      const key = String(name.Value);
      if (references) this.variables.markReference(key);
      const value = nodeField(assign, 'Value');
      const word =
        value && !nodeField(assign, 'Index') && !this.variables.isReference(key) ? this.word(value) : undefined;
      const before = assign.Append ? this.variables.get(key) : '';
      this.variables.assign(
        key,
        word?.literal && before !== undefined ? before + word.value : undefined,
        word?.substitutes,
      );
    }
  }

  /** The working directory when the script set it to a known place (`cd /etc`), else undefined. */
  cwd(): string | undefined {
    return this.variables.get(CWD);
  }

  /** `cd DIR`: known when DIR is literal and absolute, or relative to a known directory; `cd` alone goes home. */
  changeDirectory(args: ShellWord[]): void {
    const target = args.length ? args[0] : literalWord('~');
    const dir = target.literal && args.length <= 1 ? absolutePath(target.value, this.cwd()) : undefined;
    this.variables.assign(CWD, dir);
  }

  /** An unquoted `$X` with a known value that IFS would split, inside a longer word (`x$A`). */
  private splitsWhenExpanded(part: GoNode): boolean {
    const value = this.variables.get(plainParamName(part) ?? '');
    return value !== undefined && splitWords(value, this.variables.get('IFS')).length !== 1;
  }

  /** Marks `"$@"`, `${a[@]}`, `$*`, an unquoted `$(...)` and an unquoted `$X` filled at run time (see {@link ShellWord.spreads}). */
  private withSpread(word: ShellWord, parts: GoNode[], plainName: string | undefined): ShellWord {
    const spreads =
      SPREADING.test(word.raw) ||
      parts.some((p) => nodeKind(p) === 'CmdSubst' && !ONE_WORD_SUBSTITUTION.test(this.source.of(p))) ||
      (plainName !== undefined && this.variables.isComputed(plainName));
    return spreads ? { ...word, spreads } : word;
  }

  /**
   * `"$HOME/bin/tool"`, `${DIR:-/usr/bin}/rm`, `"$(npm bin)/jest"`: a directory from the environment (or from
   * a substitution inside double quotes, which cannot split) and a literal file name. Not when the directory
   * comes from this script's unknowns (`X=$(curl ...)`) or from an unquoted substitution (`$(cmd)/x`).
   */
  private withCommandName(word: ShellWord): ShellWord {
    const slash = word.value.lastIndexOf('/');
    const file = word.value.slice(slash + 1);
    if ((word.substitutes && !/^"[^"]*"$/.test(word.raw)) || slash < 0 || !file || /[$`)]/.test(file)) return word;
    const names = [...word.raw.matchAll(/\$\{?[#!]?([A-Za-z_]\w*|[^A-Za-z_(])/g)].map((m) => m[1]);
    if (names.some((n) => !/^[A-Za-z_]/.test(n) || this.variables.isUnknown(n))) return word;
    return { ...word, commandName: word.value };
  }

  /** Remembers what a statement wrote to files, for a later `sh file`, `./file` or `< file`. */
  recordWrites(st: GoNode, argv: ShellWord[]): void {
    for (const redirect of nodeList(st.Redirs)) {
      const word = nodeField(redirect, 'Word');
      if (!word || !WRITE_OPS.has(redirect.Op)) continue;
      const target = this.word(word);
      if (!target.literal) continue;
      const path = normalizePath(target.value);
      const text = this.producedText(st) ?? null;
      const before = this.files.get(path);
      const appends = redirect.Op === ShellOp.APP_OUT || redirect.Op === ShellOp.APP_ALL;
      this.files.set(
        path,
        appends && before !== undefined ? (before === null || text === null ? null : before + text) : text,
      );
    }
    const download = DOWNLOAD_TARGET[argv[0]?.value.toLowerCase() ?? ''];
    const at = download ? argv.findIndex((w) => download.test(w.value)) : -1;
    const file = at > 0 ? argv[at + 1] : undefined;
    if (file?.literal) this.files.set(normalizePath(download === OUT_FILE ? windowsPath(file) : file.value), null);
  }

  fileText(path: string): string | null | undefined {
    return this.files.get(normalizePath(path));
  }

  /** The input of a statement: its own `<`, `<<<` or heredoc first, else the pipe feeding it. */
  stdinOf(st: GoNode, origin: StdinOrigin | undefined): ShellStdin {
    const fromRedirect = this.redirectInput(st);
    if (fromRedirect) return fromRedirect;
    if (!origin) return { kind: 'none' };
    if ('unknown' in origin) return { kind: 'opaque', decoded: false, snippet: origin.unknown };
    const pipeline = this.source.of(origin.pipeline);
    const producer = lastStage(origin.pipeFrom);
    const text = this.producedText(producer);
    if (text !== undefined) return { kind: 'text', text, literal: true, substitutes: false, snippet: pipeline };
    return {
      kind: 'opaque',
      decoded: DECODER_PATTERN.test(this.source.of(origin.pipeFrom)),
      snippet: pipeline,
      roots: this.findRoots(producer),
      producer: this.source.of(producer),
    };
  }

  /** The starting points of a `find` that feeds a pipe (at most four), else undefined. */
  private findRoots(producer: GoNode): ShellWord[] | undefined {
    const call = nodeField(producer, 'Cmd');
    if (nodeKind(call) !== 'CallExpr' || !call) return undefined;
    const [name, ...args] = nodeList(call.Args).map((w) => this.word(w));
    if (!name?.literal || !/^g?find$/.test(name.value.slice(name.value.lastIndexOf('/') + 1))) return undefined;
    const firstTest = args.findIndex((w) => /^[-(!]/.test(w.value));
    const roots = (firstTest < 0 ? args : args.slice(0, firstTest)).slice(0, 4);
    return roots.length ? roots : [literalWord('.')];
  }

  private redirectInput(st: GoNode): ShellStdin | undefined {
    let input: ShellStdin | undefined;
    const snippet = () => this.source.of(st);
    for (const redirect of nodeList(st.Redirs)) {
      const word = nodeField(redirect, 'Word');
      if (redirect.Op === ShellOp.RDR_IN && word) {
        const target = this.word(word).value;
        const written = this.fileText(target);
        if (target === '/dev/null') input = { kind: 'none' };
        else if (typeof written === 'string')
          input = { kind: 'text', text: written, literal: true, substitutes: false, snippet: snippet() };
        else input = { kind: 'opaque', decoded: false, snippet: snippet() };
      } else if (redirect.Op === ShellOp.HERE_STRING && word) {
        input = textInput(this.word(word), snippet());
      } else if (redirect.Op === ShellOp.HEREDOC || redirect.Op === ShellOp.DASH_HEREDOC) {
        const body = nodeField(redirect, 'Hdoc');
        input = body ? textInput(this.word(body, true), snippet()) : { kind: 'none' };
      }
    }
    return input;
  }

  /** The text a statement writes when it is fully known: `echo '...'`, `printf '...'`, `cat <<EOF`. */
  private producedText(producer: GoNode): string | undefined {
    const call = nodeField(producer, 'Cmd');
    if (nodeKind(call) !== 'CallExpr' || !call) return undefined;
    const argv = nodeList(call.Args).map((w) => this.word(w));
    if (!argv.length || argv.some((w) => !w.literal)) return undefined;
    const [name, ...args] = argv.map((w) => w.value);
    if (name === 'echo') {
      const first = args.findIndex((a) => !/^-[neE]+$/.test(a));
      const options = first < 0 ? args : args.slice(0, first);
      const line = (first < 0 ? [] : args.slice(first)).join(' ') + (options.some((f) => f.includes('n')) ? '' : '\n');
      return options.some((f) => f.includes('e')) ? unescapeC(line) : line;
    }
    if (name === 'printf' && args.length) return printfOutput(args[0], args.slice(1));
    if (name === 'cat' && !args.length) {
      const input = this.redirectInput(producer);
      return input?.kind === 'text' && input.literal ? input.text : undefined;
    }
    return undefined;
  }
}

/** The working directory, kept with the variables (a name no variable can have) so branches and subshells scope it too. */
const CWD = ' cwd';

/** A word that is only `$@`, `$*`, `${@}`, `${a[@]}` or `${a[*]}` (quoted or not): it expands into any number of words. */
const SPREADING = /^"?\$(?:[@*]|\{[@*]\}|\{[A-Za-z_]\w*\[[@*]\]\})"?$/;

/** An unquoted pattern character (a lone `[` is the test command, not a pattern). */
const GLOB = /(?:^|[^\\])(?:[*?]|\[[^\]]+\])/;

/** Substitutions that print one plain word (a user, an id, a host name, a count): they cannot carry options. */
const ONE_WORD_SUBSTITUTION =
  /^(?:\$\(|`)\s*(?:whoami|id(?:\s+-[ugnr]+)*|nproc|hostname(?:\s+-s)?|uname(?:\s+-[a-z])?|logname)\s*(?:\)|`)$/;

/** `pre{a,b,c}post`: one level of brace list, no nesting. */
const BRACE_LIST = /^([^{}]*)\{([^{}]*,[^{}]*)\}([^{}]*)$/;

/** Field splitting of an unquoted expansion: on IFS (blank, tab, newline unless the script set it). */
function splitWords(text: string, ifs = ' \t\n'): ShellWord[] {
  if (!ifs) return [literalWord(text)];
  const separators = new RegExp(`[${ifs.replace(/[\\\]^-]/g, '\\$&')}]+`);
  return text.split(separators).filter(Boolean).map(literalWord);
}

function textInput(word: ShellWord, snippet: string): ShellStdin {
  return { kind: 'text', text: word.value, literal: word.literal, substitutes: word.substitutes, snippet };
}

/** The last command of a pipeline: what actually writes into the next pipe. */
function lastStage(st: GoNode): GoNode {
  let current = st;
  for (;;) {
    const cmd = nodeField(current, 'Cmd');
    const y =
      cmd && nodeKind(cmd) === 'BinaryCmd' && (cmd.Op === ShellOp.PIPE || cmd.Op === ShellOp.PIPE_ALL)
        ? nodeField(cmd, 'Y')
        : undefined;
    if (!y) return current;
    current = y;
  }
}

function normalizePath(path: string): string {
  return path.replace(/^(?:\.\/)+/, '');
}

/** The C escapes echo -e and printf turn into characters: `\n`, `\x72`, `\162` (or `\0162`), `\u0072` ... */
const C_ESCAPE = /\\(?:x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|0?([0-7]{1,3})|(.))/gs;

function unescapeC(text: string): string {
  return text.replace(C_ESCAPE, (m, hex?: string, u4?: string, u8?: string, octal?: string, c?: string) => {
    const code = hex ?? u4 ?? u8;
    if (code !== undefined) return String.fromCodePoint(Math.min(parseInt(code, 16), 0x10ffff));
    if (octal !== undefined) return String.fromCharCode(parseInt(octal, 8) & 0xff);
    return c === undefined ? m : (SIMPLE_ESCAPES[c] ?? (c === '\\' ? '\\' : m));
  });
}

/** Longest printf output worked out (a long format reused for many arguments could fill the memory). */
const MAX_PRINTF_OUTPUT = 256 * 1024;

/**
 * What `printf FORMAT ARGS...` writes: escapes in the format turned into characters, each conversion (`%s`, `%d`,
 * `%b` with its argument's escapes too) filled with the next argument, the format reused while arguments remain.
 * Undefined (unknown text) past MAX_PRINTF_OUTPUT characters.
 */
function printfOutput(format: string, args: string[]): string | undefined {
  const pattern = /%(?:%|[-+ #0]*\d*(?:\.\d*)?([a-zA-Z]))/g;
  let out = '';
  let next = 0;
  do {
    let used = false;
    out += unescapeC(format).replace(pattern, (m, conversion?: string) => {
      if (!conversion) return '%';
      used = true;
      const arg = args[next++] ?? '';
      return conversion === 'b' ? unescapeC(arg) : arg;
    });
    if (!used) break;
    if (out.length > MAX_PRINTF_OUTPUT) return undefined;
  } while (next < args.length);
  return out;
}
