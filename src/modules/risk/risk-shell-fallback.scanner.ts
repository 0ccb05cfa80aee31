import type { RiskScan } from './risk-scan';
import { DECODER_PATTERN, MAX_WRAPPED_COMMANDS, ShellCommandEnv } from './risk-shell-command';
import { PERMISSION_COMMANDS } from './risk-permission-commands.rules';
import { checkCommand, commandKey, hasHandler } from './risk-shell-commands.registry';
import { SYSTEM_FILE_COMMANDS } from './risk-system-file-commands.rules';
import { deletesPipedItems } from './risk-windows-commands.rules';
import { MAX_DOTNET_DELETES, dotNetDeletes } from './risk-windows-dotnet-calls';
import { everyProcessKill } from './risk-windows-process-kills';
import type { ShellWord } from './risk-shell-word';
import { scanUnparsedSql } from './risk-sql.analyzer';

/** Command separators: what can end one command and start another, even in text that is not valid shell. */
const SEPARATOR = /(\|\||&&|\$\(|[|;&\n()`{}])/;
const SHELL_READING_STDIN = /^(?:sudo\s+)?(?:\S*\/)?(?:ba|z|da|k|mk|a)?sh(?:\s+-s\b.*)?$|^(?:iex|invoke-expression)$/i;
/** Limits that keep the scan linear on hostile input: command starts per segment, words per command. */
const MAX_STARTS_PER_SEGMENT = 32;
const MAX_WORDS_PER_COMMAND = 64;
/** Commands judged by the paths they touch; several are English words (install, truncate). */
const PATH_COMMANDS = new Set([...Object.keys(SYSTEM_FILE_COMMANDS), ...Object.keys(PERMISSION_COMMANDS)]);

/**
 * Fail-closed reading of text that does not parse as shell (an unclosed quote, prose around a command).
 * The text is cut at command separators and split into words (quotes dropped); every word that names a
 * command the rules know starts a candidate command, checked by the same rules as parsed shell.
 * So "Don't run rm -rf / on prod" is flagged, while prose that names no command stays safe. PowerShell's .NET deletes
 * (`[IO.Directory]::Delete(...)`, `$_.Delete()`) are read as the Remove-Item they amount to, killing every process
 * (`Get-Process | % { $_.Kill() }`, `(Get-Process).Kill()`) as `Get-Process | Stop-Process`, and the commands in a block
 * run per item (`% { ... }`, `foreach ($f in Get-ChildItem) { ... }`) as run over a generated list.
 */
export function scanUnparsedShell(text: string, scan: RiskScan): void {
  const deletes = dotNetDeletes(text);
  if (deletes.length > MAX_DOTNET_DELETES) scan.report('opaque', text);
  for (const call of deletes.slice(0, MAX_DOTNET_DELETES))
    checkCommand(call.argv.map(toWord), fallbackEnv(scan, call.snippet, scan.many, false));
  const kill = everyProcessKill(text);
  if (kill) scan.report('infrastructure-destroy', kill);
  const pieces = text.split(SEPARATOR);
  let pipeline: string[] = [];
  // PowerShell blocks run once per item of a generated list: the brace depths they open at, innermost last.
  const perItemBlocks: number[] = [];
  const perItemScan = scan.perItem();
  let depth = 0;
  let loopOverList = false;
  for (let i = 0; i < pieces.length; i += 2) {
    const segment = pieces[i].trim();
    const before = pieces[i - 1];
    if (before === '{') depth++;
    if (before === '}') {
      if (perItemBlocks[perItemBlocks.length - 1] === depth) perItemBlocks.pop();
      depth = Math.max(0, depth - 1);
    }
    if (before === '(' && /^foreach$/i.test(pieces[i - 2]?.trim() ?? ''))
      loopOverList = loopsOverGeneratedList(segment);
    if (pieces[i + 1] === '{') {
      if (PER_ITEM_BLOCK.test(segment) || (loopOverList && !segment)) perItemBlocks.push(depth + 1);
      loopOverList = false;
    }
    const here = perItemBlocks.length ? perItemScan : scan;
    if (before !== '|') pipeline = [];
    if (before === '|' && SHELL_READING_STDIN.test(segment)) {
      scan.report(
        pipeline.some((stage) => DECODER_PATTERN.test(stage)) ? 'obfuscated' : 'opaque',
        [...pipeline, segment].join(' | '),
      );
    }
    // `iex (EXPR)`: PowerShell runs what EXPR evaluates to (a download: `(New-Object Net.WebClient).DownloadString(url)`).
    if (pieces[i + 1] === '(' && RUNS_EXPRESSION.test(segment)) here.report('opaque', `${segment} (${pieces[i + 2]}`);
    pipeline.push(segment);
    // The last stage of a pipeline: a markdown table's cells (`| key | del |`) are followed by another `|`.
    if (segment) scanSegment(segment, here, before === '|' && pieces[i + 1] !== '|');
  }
  scanUnparsedSql(text, scan);
}

/** PowerShell's eval right before a parenthesised expression: `iex (`, `Invoke-Expression(`. */
const RUNS_EXPRESSION = /(?:^|\s)(?:iex|invoke-expression)$/i;

/** What opens a PowerShell block run once per item piped in: `% {`, `ForEach-Object -Process {`. */
const PER_ITEM_BLOCK = /(?:^|\s)(?:%|foreach-object|foreach)(?:\s+-process)?$/i;

/** A list of literals (`'a.txt', 'b.txt'`, `1..3`); anything else (a command, a variable, an expression) is generated. */
const LITERAL_LIST = /^(?:'[^']*'|"[^"$]*"|\d+(?:\.\.\d+)?)(?:\s*,\s*(?:'[^']*'|"[^"$]*"|\d+))*$/;

/** The head of PowerShell's `foreach ($f in LIST)`: true when LIST is generated (`Get-ChildItem`, `$files`, `(gci)`). */
function loopsOverGeneratedList(head: string): boolean {
  const list = /^\$\w+\s+in\b(.*)$/is.exec(head)?.[1]?.trim();
  return list !== undefined && !LITERAL_LIST.test(list);
}

/**
 * `piped`: the segment ends a pipeline. Only PowerShell's deletes are given what it read as unknown input
 * (`gci | ? { ... (Get-Date) ... } | del`): a `|` in prose or a markdown table (`| black | python`) is no pipe.
 */
function scanSegment(segment: string, scan: RiskScan, piped: boolean): void {
  const words = segment.split(/\s+/).map(toWord);
  let starts = 0;
  for (let i = 0; i < words.length && starts < MAX_STARTS_PER_SEGMENT; i++) {
    if (!words[i].literal || !hasHandler(words[i].value)) continue;
    // "I'll mv the old configs to /etc": a path command in prose counts only when an option or a path follows it.
    if (PATH_COMMANDS.has(commandKey(words[i].value)) && !/^[-/~$.]/.test(words[i + 1]?.value ?? '')) continue;
    starts++;
    const reads = piped && deletesPipedItems(commandKey(words[i].value));
    checkCommand(words.slice(i, i + MAX_WORDS_PER_COMMAND), fallbackEnv(scan, segment, scan.many, reads));
  }
}

/** What a command found in unparsed text may use: `reads` gives it unknown input; nothing is known of files. */
function fallbackEnv(scan: RiskScan, snippet: string, many: boolean, reads: boolean, wrapped = 0): ShellCommandEnv {
  return {
    scan,
    snippet,
    stdin: () => (reads ? { kind: 'opaque', decoded: false, snippet } : { kind: 'none' }),
    many,
    run: (argv, withStdin = true, runsMany = false) => {
      if (!argv.length) return;
      if (wrapped >= MAX_WRAPPED_COMMANDS) return scan.report('opaque', snippet);
      checkCommand(argv, fallbackEnv(scan, snippet, many || runsMany, reads && withStdin, wrapped + 1));
    },
    fileText: () => undefined,
  };
}

/** A word of unparsed text: quotes dropped; `$X` and `$(...)` make it unknown, as in parsed shell. */
function toWord(raw: string): ShellWord {
  const value = raw.replace(/['"\\]/g, '');
  const dynamic = value.replace(/\$\{?\w+\}?|\$\(.*?\)|`.*?`/g, '');
  return {
    value,
    raw,
    literal: dynamic.length === value.length && !value.includes('$'),
    literalLength: dynamic.length,
    substitutes: /\$\(|`/.test(raw),
  };
}
