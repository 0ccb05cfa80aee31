import type { ShellCommandEnv, ShellCommandHandler } from './risk-shell-command';
import { runCodeWord, runStdin } from './risk-shell-command';
import { ShellWord, joinWords, literalWord } from './risk-shell-word';
import { isSystemWord } from './risk-system-paths';
import { stopsEveryProcess, stopsEveryService } from './risk-windows-process-kills';
import { xargs } from './risk-wrapper-commands.rules';

/**
 * PowerShell reads the en dash, em dash and horizontal bar as `-` (`Remove-Item –Recurse`, as word processors and chat
 * apps write it, recurses): text PowerShell reads is checked with them made plain.
 */
export function plainPowerShell(text: string): string {
  return text.replace(/[\u2013\u2014\u2015]/g, '-');
}

/** `/s` (cmd.exe) or an abbreviation of PowerShell's `-Recurse` (also given its value: `-Recurse:$true`). */
const RECURSIVE_SWITCH = /^(?:\/s|-r(?:e(?:c(?:u(?:r(?:s(?:e)?)?)?)?)?)?(?::\$true)?)$/i;
/** cmd.exe switches written together (`/s/q`, `/f/s/q`, `/a:h/s`): a word of single-letter switches only. */
const SWITCH_CLUSTER = /^(?:\/[a-z](?::[-\w]*)?){2,}$/i;

/** cmd.exe's deletes with their switches written against the name (`rd/s/q`, `del/f/s/q`): cmd.exe ends a name at `/`. */
const GLUED_CMD_DELETE = /^(rd|rmdir|del|erase)((?:\/[a-z](?::[-\w]*)?)+)$/i;

/** `rd/s/q` as cmd.exe reads it, `rd /s /q`; undefined for any other word. */
export function ungluedCmdSwitches(word: string): ShellWord[] | undefined {
  const glued = GLUED_CMD_DELETE.exec(word);
  return glued ? [glued[1], ...glued[2].split(/(?=\/)/)].map(literalWord) : undefined;
}

/** `-WhatIf` (also `-WhatIf:$true`): the cmdlet only says what it would do. */
const WHAT_IF = /^-whatif(?::\$true)?$/i;

function previews(args: ShellWord[]): boolean {
  return args.some((w) => WHAT_IF.test(plainPowerShell(w.value)));
}

/**
 * A recursive delete, or one run over a generated list (`gci -r | Remove-Item`, `... | % { ri $_ }`), as `rm` is judged;
 * deleting a system file (`del /f C:\Windows\System32\...`) overwrites the system.
 */
export function removeItem(args: ShellWord[], env: ShellCommandEnv): void {
  const switches = args
    .map((w) => plainPowerShell(w.value))
    .flatMap((w) => (SWITCH_CLUSTER.test(w) ? w.split(/(?=\/)/) : [w]));
  if (switches.some((s) => WHAT_IF.test(s))) return;
  if (env.many || switches.some((s) => RECURSIVE_SWITCH.test(s))) env.scan.report('recursive-delete', env.snippet);
  else if (args.some((w) => isSystemWord(w, env.cwd))) env.scan.report('system-file-overwrite', env.snippet);
}

/** PowerShell-style arguments: `-Name value` for the parameters `takesValue` matches, the others positional (switches dropped). */
function readParameters(
  args: ShellWord[],
  takesValue: RegExp,
): { named: Map<string, ShellWord>; positional: ShellWord[] } {
  const named = new Map<string, ShellWord>();
  const positional: ShellWord[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = plainPowerShell(args[i].value).toLowerCase();
    if (takesValue.test(name)) {
      if (args[i + 1]) named.set(name, args[++i]);
    } else if (!name.startsWith('-') && !CMD_SWITCH.test(name)) {
      positional.push(args[i]);
    }
  }
  return { named, positional };
}

/** A cmd.exe switch (`/y`, `/-y`). */
const CMD_SWITCH = /^\/-?[a-z]$/;

/** Parameters of the file cmdlets that take a value (the others are switches: `-Force`, `-Append`, `-NoNewline`). */
const FILE_PARAMETER_VALUE =
  /^-(?:path|literalpath|lp|pspath|filepath|destination|value|encoding|filter|include|exclude|stream|credential|inputobject|width|delimiter)$/i;

/** `Set-Content PATH`, `Add-Content`, `Clear-Content`, `Out-File`: the file at PATH is written over or cut. */
function writesFile(args: ShellWord[], env: ShellCommandEnv): void {
  if (previews(args)) return;
  const { named, positional } = readParameters(args, FILE_PARAMETER_VALUE);
  const target = named.get('-path') ?? named.get('-literalpath') ?? named.get('-lp') ?? named.get('-pspath');
  const file = target ?? named.get('-filepath') ?? positional[0];
  if (file && isSystemWord(file, env.cwd)) env.scan.report('system-file-overwrite', env.snippet);
}

/** `Copy-Item SRC DEST` / `copy SRC DEST` replace DEST; `Move-Item` / `move` also take their sources away. */
function copiesFile(movesSources: boolean): ShellCommandHandler {
  return (args, env) => {
    if (previews(args)) return;
    const { named, positional } = readParameters(args, FILE_PARAMETER_VALUE);
    const source = named.get('-path') ?? named.get('-literalpath') ?? named.get('-lp');
    const operands = source ? [source, ...positional] : positional;
    const destination = named.get('-destination');
    const dest = destination ?? (operands.length > 1 ? operands[operands.length - 1] : undefined);
    const sources = destination || operands.length < 2 ? operands : operands.slice(0, -1);
    const targets = [...(dest ? [dest] : []), ...(movesSources ? sources : [])];
    if (targets.some((w) => isSystemWord(w, env.cwd))) env.scan.report('system-file-overwrite', env.snippet);
  };
}

/** PowerShell's current pipeline item: `$_`, `$PSItem`, `$_.FullName`. */
const PIPELINE_ITEM = /\$(?:_|psitem)\b/i;

/**
 * A PowerShell cmdlet that takes the items piped into it (`gci -r | Remove-Item`) runs on each of them, as
 * `... | xargs CMD` does: read the same way (known items one by one, unknown ones as a generated list). One given
 * the current item (`Remove-Item $_`, in a script block bash splits at its `;`) runs once per item too.
 */
function takesPipeline(handler: ShellCommandHandler): ShellCommandHandler {
  return (args, env, name) => {
    if (env.stdin().kind !== 'none') xargs([literalWord(name), ...args], env);
    else if (args.some((w) => PIPELINE_ITEM.test(w.raw))) handler(args, { ...env, many: true }, name);
    else handler(args, env, name);
  };
}

/** Remove-Item and its aliases: they take the items piped into them. */
const PIPED_DELETES: readonly string[] = ['remove-item', 'ri', 'del', 'erase', 'rd'];

/** True for a command (its handler key) that deletes the items piped into it: text that does not parse gives it unknown ones. */
export function deletesPipedItems(command: string): boolean {
  return PIPED_DELETES.includes(command) || command === 'rm';
}

/**
 * PowerShell's `rm` (Remove-Item's alias) given no path deletes the items piped into it (`gci -r | rm`), read as
 * `... | xargs rm`; bash's rm never reads its input, so this reading costs bash nothing.
 */
function removesPipedItems(args: ShellWord[], env: ShellCommandEnv, name: string): void {
  if (env.stdin().kind !== 'none' && args.every((w) => w.value.startsWith('-')))
    xargs([literalWord(name), ...args], env);
}

/** The command in a script block argument (`{ Remove-Item $_ }`, `{Remove-Item $_}`), empty when there is none. */
function blockCommand(args: ShellWord[]): ShellWord[] {
  const open = args.findIndex((w) => w.value.startsWith('{'));
  if (open < 0) return [];
  const block = args.slice(open);
  block[0] = { ...block[0], value: block[0].value.slice(1) };
  const last = block.length - 1;
  if (block[last].value.endsWith('}')) block[last] = { ...block[last], value: block[last].value.slice(0, -1) };
  return block.filter((w) => w.value);
}

/**
 * Reads a script block's command as code one level deeper, as `bash -c` is read: blocks nested in blocks are bounded by
 * the nesting limit (hostile text of thousands of `icm {` would otherwise copy its words at every level).
 */
function runBlock(args: ShellWord[], env: ShellCommandEnv, perItem: boolean): void {
  const block = blockCommand(args);
  if (block.length > MAX_BLOCK_WORDS) env.scan.report('opaque', env.snippet);
  else if (block.length) runCodeWord(joinWords(block), 'shell', perItem ? { ...env, many: true } : env);
}

/** One command in a script block (bash ends it at `;`) of more words than this is no script anyone writes: opaque. */
const MAX_BLOCK_WORDS = 1_000;

/**
 * ForEach-Object's script block (`... | % { Remove-Item $_ }`): its command runs once per item piped in. A block that
 * stops each process (`Get-Process | % { Stop-Process $_ }`, `% Kill`) is read as Stop-Process taking the pipe.
 */
function forEachObject(args: ShellWord[], env: ShellCommandEnv): void {
  stopProcess(args, env);
  runBlock(args, env, true);
}

/** `Invoke-Command -ScriptBlock { CMD }` (here or on other machines), `Start-Job { CMD }`, `Measure-Command { CMD }`. */
function runsScriptBlock(args: ShellWord[], env: ShellCommandEnv): void {
  runBlock(args, env, false);
}

/** Start-Process's parameters that take a value (the others are switches: `-Wait`, `-NoNewWindow`). */
const START_PROCESS_VALUE =
  /^-(?:filepath|path|argumentlist|args|workingdirectory|verb|windowstyle|credential|redirectstandard\w+)$/i;

/** `Start-Process FILE [-ArgumentList] ARGS` (saps): FILE runs with ARGS as its command line. */
function startProcess(args: ShellWord[], env: ShellCommandEnv): void {
  const { named, positional } = readParameters(args, START_PROCESS_VALUE);
  const file = named.get('-filepath') ?? named.get('-path') ?? positional[0];
  const list =
    named.get('-argumentlist') ?? named.get('-args') ?? (file === positional[0] ? positional[1] : positional[0]);
  if (file) runCodeWord(joinWords(list ? [file, list] : [file]), 'shell', env);
}

/**
 * `Get-Process | Stop-Process` (or `| % { Stop-Process $_ }`, `| % Kill`, `| kill`): stopping every process takes the
 * machine down; stopping the processes picked by name, id or a filter between them (`| Where-Object { ... } |`) does not.
 */
function stopProcess(_args: ShellWord[], env: ShellCommandEnv): void {
  const input = env.stdin();
  if (input.kind === 'opaque' && stopsEveryProcess(input.snippet))
    env.scan.report('infrastructure-destroy', env.snippet);
}

/** `Get-Service | Stop-Service`: stopping every service takes the machine down, as stopping every process does. */
function stopService(_args: ShellWord[], env: ShellCommandEnv): void {
  const input = env.stdin();
  if (input.kind === 'opaque' && stopsEveryService(input.snippet))
    env.scan.report('infrastructure-destroy', env.snippet);
}

/** PowerShell's eval (`iex "CMD"`, `Invoke-Expression -Command CMD`, `... | iex`): runs a string as code. */
function invokeExpression(args: ShellWord[], env: ShellCommandEnv): void {
  const code = args.filter((w) => !/^-c(?:o(?:m(?:m(?:a(?:n(?:d)?)?)?)?)?)?$/i.test(w.value));
  if (code.length) runCodeWord(joinWords(code), 'shell', env);
  else runStdin('shell', env);
}

/** `Format-Volume`, `Clear-Disk`, `Remove-Partition`: wipe a volume, a disk or a partition, whatever they are given. */
function volumeWipe(_args: ShellWord[], env: ShellCommandEnv): void {
  env.scan.report('disk-wipe', env.snippet);
}

function format(args: ShellWord[], env: ShellCommandEnv): void {
  if (args.some((w) => /^[a-z]:\\?$/i.test(w.value))) env.scan.report('disk-wipe', env.snippet);
}

/** A drive root (`C:\\`) or the Windows directory. */
const WINDOWS_SYSTEM = /^[a-z]:(?:\\|\/)?(?:\*|windows(?:[\\/].*)?)?$/i;

/** `icacls C:\\ /grant Everyone:F /T`, `takeown /f C:\\Windows /r`: permissions of the system drive, recursive or on its root. */
function windowsPermission(args: ShellWord[], env: ShellCommandEnv): void {
  const recursive = args.some((w) => /^\/[tr]$/i.test(w.value));
  const targets = args.filter((w) => !w.value.startsWith('/') && !/^\w+:[A-Z(),]+$/.test(w.value));
  const onRoot = targets.some((w) => /^[a-z]:[\\/]?$/i.test(w.value));
  if (onRoot || (recursive && targets.some((w) => WINDOWS_SYSTEM.test(w.value))))
    env.scan.report('permission-change', env.snippet);
}

/** The handlers by command name, given their words as bash split them. */
const HANDLERS: Record<string, ShellCommandHandler> = {
  rmdir: removeItem,
  ...Object.fromEntries(PIPED_DELETES.map((name) => [name, takesPipeline(removeItem)])),
  rm: removesPipedItems,
  'foreach-object': forEachObject,
  foreach: forEachObject,
  '%': forEachObject,
  'invoke-command': runsScriptBlock,
  icm: runsScriptBlock,
  'start-job': runsScriptBlock,
  sajb: runsScriptBlock,
  'start-threadjob': runsScriptBlock,
  'measure-command': runsScriptBlock,
  'start-process': startProcess,
  saps: startProcess,
  'stop-process': stopProcess,
  spps: stopProcess,
  kill: stopProcess,
  'stop-service': stopService,
  spsv: stopService,
  format,
  'format-volume': volumeWipe,
  'clear-disk': volumeWipe,
  'remove-partition': volumeWipe,
  iex: invokeExpression,
  'invoke-expression': invokeExpression,
  icacls: windowsPermission,
  takeown: windowsPermission,
  'set-content': writesFile,
  'add-content': writesFile,
  ac: writesFile,
  'clear-content': writesFile,
  clc: writesFile,
  'out-file': writesFile,
  'copy-item': copiesFile(false),
  cpi: copiesFile(false),
  copy: copiesFile(false),
  'move-item': copiesFile(true),
  mi: copiesFile(true),
  move: copiesFile(true),
};

/**
 * Words as PowerShell and cmd.exe split them: the backslash is no escape there, so `.\build\ -Recurse` (to bash one
 * word, `.build -Recurse`: a tab-completed directory and a switch) is the path `.\build\` and the switch `-Recurse`;
 * so is `$HOME\ -r` the variable's path and `-r`.
 */
export function windowsWords(args: ShellWord[]): ShellWord[] {
  // Most commands have no such word: their words are used as they are, not copied (every rm and del comes here).
  if (!args.some(joinsAcrossBackslash)) return args;
  return args.flatMap((w) =>
    joinsAcrossBackslash(w)
      ? w.raw
          .split(/(?<=\\)\s+/)
          .filter(Boolean)
          .map(windowsWord)
      : [w],
  );
}

/** A word bash joined across a backslash and a space, unquoted and built by no substitution (`C:\ -r`, `$HOME\ -r`). */
function joinsAcrossBackslash(word: ShellWord): boolean {
  return !word.substitutes && /\\\s/.test(word.raw) && !/['"`]/.test(word.raw);
}

/** One piece of a word split the Windows way: literal unless it names a variable (`$HOME\`, `$env:USERPROFILE\`). */
function windowsWord(piece: string): ShellWord {
  if (!piece.includes('$')) return literalWord(piece);
  const literalLength = piece.replace(/\$\{?[\w:]+\}?/g, '').length;
  return { value: piece, literal: false, literalLength, substitutes: false, raw: piece };
}

/**
 * cmd.exe and PowerShell deletes (`rmdir /s`, `del /s`, `Remove-Item -Recurse`, `gci -r | ri`, `format C:`), disk wipes,
 * `iex`, system-drive permissions, what PowerShell pipelines run per item (ForEach-Object, Stop-Process), and what
 * script blocks and started processes run; each reads its words as PowerShell and cmd.exe split them.
 */
export const WINDOWS_COMMANDS: Record<string, ShellCommandHandler> = Object.fromEntries(
  Object.entries(HANDLERS).map(([name, handler]) => [
    name,
    (args: ShellWord[], env: ShellCommandEnv, key: string) => handler(windowsWords(args), env, key),
  ]),
);
