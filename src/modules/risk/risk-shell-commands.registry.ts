import { DATABASE_RESET_COMMANDS } from './risk-database-reset-commands.rules';
import { FILE_COMMANDS } from './risk-file-commands.rules';
import { GIT_COMMANDS } from './risk-git.rules';
import { INFRASTRUCTURE_COMMANDS } from './risk-infrastructure-commands.rules';
import { INTERPRETER_COMMANDS } from './risk-interpreter-commands.rules';
import { PERMISSION_COMMANDS } from './risk-permission-commands.rules';
import type { ShellCommandEnv, ShellCommandHandler } from './risk-shell-command';
import { reportHidden, runWrittenFile } from './risk-shell-command';
import { SQL_CLIENT_COMMANDS } from './risk-sql-client-commands.rules';
import { ShellWord, literalWord, windowsPath } from './risk-shell-word';
import { SYSTEM_FILE_COMMANDS } from './risk-system-file-commands.rules';
import { WINDOWS_COMMANDS, ungluedCmdSwitches } from './risk-windows-commands.rules';
import { WRAPPER_COMMANDS } from './risk-wrapper-commands.rules';

/** Every rule set; a command two sets know (`docker exec ...` wraps, `docker volume rm` destroys) runs both. */
const RULE_SETS: Record<string, ShellCommandHandler>[] = [
  FILE_COMMANDS,
  PERMISSION_COMMANDS,
  SYSTEM_FILE_COMMANDS,
  WINDOWS_COMMANDS,
  GIT_COMMANDS,
  WRAPPER_COMMANDS,
  INTERPRETER_COMMANDS,
  SQL_CLIENT_COMMANDS,
  DATABASE_RESET_COMMANDS,
  INFRASTRUCTURE_COMMANDS,
];

const HANDLERS = new Map<string, ShellCommandHandler>();
for (const set of RULE_SETS) {
  for (const [name, handler] of Object.entries(set)) {
    const before = HANDLERS.get(name);
    HANDLERS.set(
      name,
      before
        ? (args, env, command) => {
            before(args, env, command);
            handler(args, env, command);
          }
        : handler,
    );
  }
}

/** Version and variant suffixes mapped to the handler's name: python3.12 → python, mkfs.ext4 → mkfs, zsh → sh. */
const ALIASES: [RegExp, string][] = [
  [/^(?:ba|z|da|k|mk|a|fi|c|tc|pdk|y|lk)?sh$/, 'sh'],
  [/^python[\d.]*$|^pypy[\d.]*$/, 'python'],
  [/^(?:node|nodejs)[\d.]*$/, 'node'],
  [/^perl[\d.]*$/, 'perl'],
  [/^ruby[\d.]*$/, 'ruby'],
  [/^php[\d.]*$/, 'php'],
  [/^mkfs(?:\..+)?$|^mkswap$|^newfs(?:_.+)?$/, 'mkfs'],
  [/^clickhouse$/, 'clickhouse-client'],
  [/^grm$|^unlink-tree$/, 'rm'],
  [/^gfind$/, 'find'],
  [/^[gmn]awk$/, 'awk'],
];

/** Any of the ALIASES: most words are none, and are known so with one test instead of one per alias. */
const ANY_ALIAS = new RegExp(ALIASES.map(([pattern]) => `(?:${pattern.source})`).join('|'));

/** The handler key for a command word: path and `.exe` stripped, lowercased, variants folded. */
export function commandKey(word: string): string {
  const base = word
    .slice(word.lastIndexOf('/') + 1)
    .replace(/\.exe$/i, '')
    .toLowerCase();
  if (HANDLERS.has(base) || !ANY_ALIAS.test(base)) return base;
  for (const [pattern, key] of ALIASES) if (pattern.test(base)) return key;
  return base;
}

/** Commands whose rules read options and paths, so arguments that expand to unknown words make them unreadable (git checks its own subcommands). */
const OPTION_SENSITIVE = new Set([...Object.keys(FILE_COMMANDS), ...Object.keys(PERMISSION_COMMANDS)]);

/** A "command" named like an SQL statement: the text is SQL written where shell was expected. */
const SQL_VERBS = new Set(['drop', 'delete', 'truncate', 'update', 'alter']);

/** True when a word names a command some rule checks (used to find commands inside unparsed text). */
export function hasHandler(word: string): boolean {
  if (ungluedCmdSwitches(word)) return true;
  const key = commandKey(word);
  return HANDLERS.has(key) || SQL_VERBS.has(key);
}

/**
 * A command word that is a file-name pattern: a path pattern (`/bin/r?`, `./build/*.sh`), or a bare one given
 * options (`r? -rf /`). A URL (`https://x/?q=1`), a question ("Ready?") or PowerShell's `?` filter is not a program anyone runs.
 */
function runsPattern(name: ShellWord, args: ShellWord[]): boolean {
  if (!name.glob || name.value.includes('://')) return false;
  // PowerShell's Where-Object alias with its script block: `gci | ? { $_.Length -gt 1MB }`.
  if (name.value === '?' && args[0]?.value.startsWith('{')) return false;
  return name.value.includes('/') || args.some((w) => w.value.startsWith('-'));
}

/** Checks one simple command (argv[0] is the command word) against every rule. */
export function checkCommand(argv: ShellWord[], env: ShellCommandEnv): void {
  const [word, ...args] = argv;
  const name = word.literal || word.commandName === undefined ? word : literalWord(word.commandName);
  if (!name.literal || runsPattern(name, args)) {
    // The command itself is built at run time (`$(echo rm) -rf /`, `$X`, `"$@"`, `${a[@]}`, `/???/r?`): whatever it is, it cannot be read.
    reportHidden(env, name.raw);
    return;
  }
  const unglued = ungluedCmdSwitches(name.value);
  if (unglued) return checkCommand([...unglued, ...args], env);
  // `./x.sh` after `echo ... > x.sh` (or after downloading it) runs known (or unknown) text; so does PowerShell's `.\x.ps1`.
  const path = /^\.{1,2}\\/.test(name.raw) ? literalWord(windowsPath(name)) : name;
  if (path.value.includes('/') && runWrittenFile(path, 'shell', env)) return;
  const key = commandKey(name.value);
  const handler = HANDLERS.get(key);
  // `rm "$@"`, `chmod $(cat mode) /`: arguments set elsewhere can carry any option or path.
  if (OPTION_SENSITIVE.has(key) && args.some((w) => w.spreads)) env.scan.report('opaque', env.snippet);
  if (handler) handler(args, env, key);
  else if (SQL_VERBS.has(key)) env.scan.nested(env.snippet, 'sql');
}
