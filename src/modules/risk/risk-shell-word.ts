import { GoNode, ShellSource, goString, nodeKind, nodeList } from './risk-shell.parser';

/** One shell word after quote removal, as far as it can be known without running anything. */
export interface ShellWord {
  /** The word after quote removal; parts only known at run time ($X, $(cmd)) keep their source text. */
  readonly value: string;
  /** True when the value is fully known (only literal text and quotes). */
  readonly literal: boolean;
  /** How many characters of the value are literal text. */
  readonly literalLength: number;
  /** True when the word runs code to build itself: $(...), `...`, <(...). */
  readonly substitutes: boolean;
  /** The word as written in the source. */
  readonly raw: string;
  /**
   * For a word that is not literal but provably names one program (`"$HOME/bin/tool"`: the directory comes
   * from the environment, the file name is literal): that name, with its directory as written.
   */
  readonly commandName?: string;
  /**
   * True when the word expands to words nobody here can count or read: `"$@"`, `"${a[@]}"`, or an unquoted
   * `$X` that this script filled at run time (`X=$(...)`, `read X`). Such words can carry any option.
   */
  readonly spreads?: boolean;
  /** True when the word holds an unquoted pattern (`*`, `?`, `[...]`): the shell replaces it with matching file names. */
  readonly glob?: boolean;
}

/** A word built from a plain string (argv given by tool arguments, words split from a string). */
export function literalWord(value: string): ShellWord {
  return { value, literal: true, literalLength: value.length, substitutes: false, raw: value };
}

interface WordBuild {
  value: string;
  literal: boolean;
  literalLength: number;
  substitutes: boolean;
}

/** Shell variables assigned a known value earlier in the same script (`CMD="rm -rf"`). */
export type ShellVars = ReadonlyMap<string, string>;

/** Resolves a `Word` node (or the heredoc body, also a `Word`); known variables are substituted. */
export function resolveWord(word: GoNode, source: ShellSource, vars?: ShellVars, heredoc = false): ShellWord {
  const build: WordBuild = { value: '', literal: true, literalLength: 0, substitutes: false };
  appendParts(nodeList(word.Parts), source, build, heredoc ? 'heredoc' : 'bare', vars);
  // Spelled out: spreading the build object (`{ ...build, raw }`) took V8's slow path, 1.7 µs a word.
  const { value, literal, literalLength, substitutes } = build;
  return { value, literal, literalLength, substitutes, raw: heredoc ? value : source.of(word) };
}

/** The name of a plain `$X` / `${X}` expansion (no operators), else undefined. */
export function plainParamName(part: GoNode): string | undefined {
  if (nodeKind(part) !== 'ParamExp' || part.Excl || part.Length || part.Width) return undefined;
  if (['Index', 'Slice', 'Repl', 'Exp'].some((f) => nodeKind(part[f]) !== undefined)) return undefined;
  const param = part.Param as GoNode | undefined;
  return nodeKind(param) === 'Lit' ? goString(param?.Value) : undefined;
}

function appendParts(
  parts: GoNode[],
  source: ShellSource,
  build: WordBuild,
  quoting: 'bare' | 'double' | 'heredoc',
  vars?: ShellVars,
): void {
  for (const part of parts) {
    const kind = nodeKind(part);
    const known = vars && kind === 'ParamExp' ? vars.get(plainParamName(part) ?? '') : undefined;
    if (known !== undefined) {
      appendLiteral(build, known);
    } else if (kind === 'Lit') {
      appendLiteral(
        build,
        quoting === 'bare' ? unescapeBare(goString(part.Value)) : unescapeDouble(goString(part.Value)),
      );
    } else if (kind === 'SglQuoted') {
      const value = goString(part.Value);
      appendLiteral(build, part.Dollar ? decodeAnsiC(value) : value);
    } else if (kind === 'DblQuoted') {
      appendParts(nodeList(part.Parts), source, build, 'double', vars);
    } else {
      build.value += source.of(part);
      build.literal = false;
      if (kind === 'CmdSubst' || kind === 'ProcSubst') build.substitutes = true;
    }
  }
}

function appendLiteral(build: WordBuild, text: string): void {
  build.value += text;
  build.literalLength += text.length;
}

function unescapeBare(text: string): string {
  return text.includes('\\') ? text.replace(/\\(\n|.)/g, (_m, c: string) => (c === '\n' ? '' : c)) : text;
}

function unescapeDouble(text: string): string {
  return text.includes('\\') ? text.replace(/\\([$`"\\\n])/g, (_m, c: string) => (c === '\n' ? '' : c)) : text;
}

/** The one-letter C escapes of `$'...'`, `echo -e` and printf (`\n`, `\e`, ...). */
export const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  v: '\v',
};

/** Decodes the escapes of a bash `$'...'` string (hex, octal, unicode and C escapes). */
export function decodeAnsiC(text: string): string {
  if (!text.includes('\\')) return text;
  const bytes: number[] = [];
  const pushText = (s: string) => bytes.push(...Buffer.from(s, 'utf8'));
  const re = /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)|[^\\]+/gs;
  for (const m of text.matchAll(re)) {
    const esc = m[1];
    if (esc === undefined) pushText(m[0]);
    else if (esc[0] === 'x') bytes.push(parseInt(esc.slice(1), 16));
    else if (esc[0] === 'u' || esc[0] === 'U')
      pushText(String.fromCodePoint(Math.min(parseInt(esc.slice(1), 16), 0x10ffff)));
    else if (/^[0-7]/.test(esc)) bytes.push(parseInt(esc, 8) & 0xff);
    else if (esc[0] === 'c' && esc.length === 2) bytes.push(esc.charCodeAt(1) & 0x1f);
    else pushText(SIMPLE_ESCAPES[esc] ?? esc);
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * The word as written with its quotes dropped and its backslashes kept: how cmd.exe and PowerShell read a path
 * (`C:\Windows\System32`), where bash takes each backslash as an escape.
 */
export function asWritten(word: ShellWord): string {
  return word.raw.replace(/['"]/g, '');
}

/** A path as cmd.exe and PowerShell read it (see {@link asWritten}), with forward slashes: `.\\i.ps1` is `./i.ps1`. */
export function windowsPath(word: ShellWord): string {
  return asWritten(word).replace(/\\/g, '/');
}

/** Several words read as one string, as `eval a b` or `ssh host a b` do (joined with spaces). */
export function joinWords(words: readonly ShellWord[]): ShellWord {
  return {
    value: words.map((w) => w.value).join(' '),
    literal: words.every((w) => w.literal),
    literalLength: words.reduce((n, w) => n + w.literalLength, 0),
    substitutes: words.some((w) => w.substitutes),
    raw: words.map((w) => w.raw).join(' '),
  };
}

/** Words handed to cmd.exe or PowerShell as one command line: unquoted ones as written, backslashes kept (see {@link asWritten}). */
export function joinWindowsWords(words: readonly ShellWord[]): ShellWord {
  return joinWords(words.map((w) => (/['"]/.test(w.raw) ? w : { ...w, value: w.raw })));
}

/** Joins words back into a command line, quoting each so it parses back to the same words. */
export function shellJoin(words: readonly string[]): string {
  return words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}
