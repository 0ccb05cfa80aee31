import type { ShellCommandEnv, ShellCommandHandler } from './risk-shell-command';
import { runCodeWord, runStdin } from './risk-shell-command';
import { ShellWord, joinWords } from './risk-shell-word';

/**
 * PowerShell reads the en dash, em dash and horizontal bar as `-` (`Remove-Item –Recurse`, as word processors and chat
 * apps write it, recurses): text PowerShell reads is checked with them made plain.
 */
export function plainPowerShell(text: string): string {
  return text.replace(/[\u2013\u2014\u2015]/g, '-');
}

/** `/s` (cmd.exe) or an abbreviation of PowerShell's `-Recurse`. */
const RECURSIVE_SWITCH = /^(?:\/s|-r(?:e(?:c(?:u(?:r(?:s(?:e)?)?)?)?)?)?)$/i;
/** cmd.exe switches written together (`/s/q`, `/f/s/q`, `/a:h/s`): a word of single-letter switches only. */
const SWITCH_CLUSTER = /^(?:\/[a-z](?::[-\w]*)?){2,}$/i;

function treeDelete(args: ShellWord[], env: ShellCommandEnv): void {
  const switches = args
    .map((w) => plainPowerShell(w.value))
    .flatMap((w) => (SWITCH_CLUSTER.test(w) ? w.split(/(?=\/)/) : [w]));
  if (switches.some((s) => RECURSIVE_SWITCH.test(s))) env.scan.report('recursive-delete', env.snippet);
}

/** PowerShell's eval (`iex "CMD"`, `Invoke-Expression -Command CMD`, `... | iex`): runs a string as code. */
function invokeExpression(args: ShellWord[], env: ShellCommandEnv): void {
  const code = args.filter((w) => !/^-c(?:o(?:m(?:m(?:a(?:n(?:d)?)?)?)?)?)?$/i.test(w.value));
  if (code.length) runCodeWord(joinWords(code), 'shell', env);
  else runStdin('shell', env);
}

/** `Format-Volume`, `Clear-Disk`: wipe a volume or a disk, whatever they are given. */
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

/** cmd.exe and PowerShell deletes (`rmdir /s`, `del /s`, `Remove-Item -Recurse`, `format C:`), disk wipes, `iex`, and system-drive permissions. */
export const WINDOWS_COMMANDS: Record<string, ShellCommandHandler> = {
  rmdir: treeDelete,
  rd: treeDelete,
  del: treeDelete,
  erase: treeDelete,
  'remove-item': treeDelete,
  ri: treeDelete,
  format,
  'format-volume': volumeWipe,
  'clear-disk': volumeWipe,
  iex: invokeExpression,
  'invoke-expression': invokeExpression,
  icacls: windowsPermission,
  takeown: windowsPermission,
};
