import type { ShellCommandEnv, ShellCommandHandler } from './risk-shell-command';
import type { ShellWord } from './risk-shell-word';

/** `/s` (cmd.exe) or an abbreviation of PowerShell's `-Recurse`. */
const RECURSIVE_SWITCH = /^(?:\/s|-r(?:e(?:c(?:u(?:r(?:s(?:e)?)?)?)?)?)?)$/i;

function treeDelete(args: ShellWord[], env: ShellCommandEnv): void {
  if (args.some((w) => RECURSIVE_SWITCH.test(w.value))) env.scan.report('recursive-delete', env.snippet);
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

/** cmd.exe and PowerShell deletes (`rmdir /s`, `del /s`, `Remove-Item -Recurse`, `format C:`) and system-drive permissions. */
export const WINDOWS_COMMANDS: Record<string, ShellCommandHandler> = {
  rmdir: treeDelete,
  rd: treeDelete,
  del: treeDelete,
  erase: treeDelete,
  'remove-item': treeDelete,
  ri: treeDelete,
  format,
  icacls: windowsPermission,
  takeown: windowsPermission,
};
