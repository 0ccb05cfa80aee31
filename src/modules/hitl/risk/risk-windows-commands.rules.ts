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

/** cmd.exe and PowerShell deletes: `rmdir /s`, `del /s`, `Remove-Item -Recurse`, `format C:`. */
export const WINDOWS_COMMANDS: Record<string, ShellCommandHandler> = {
  rmdir: treeDelete,
  rd: treeDelete,
  del: treeDelete,
  erase: treeDelete,
  'remove-item': treeDelete,
  ri: treeDelete,
  format,
};
