import type { ShellCommandEnv } from './risk-shell-command';
import { runCodeWord } from './risk-shell-command';
import type { ShellWord } from './risk-shell-word';

/**
 * Environment variables whose value a program runs as a command line: git's ssh, pager and editors, the pagers and
 * editors of other tools, askpass helpers, and what a shell runs when it starts (`PAGER='rm -rf /srv' git log`).
 */
export const COMMAND_VARIABLES: ReadonlySet<string> = new Set([
  'GIT_SSH_COMMAND',
  'GIT_SSH',
  'GIT_PAGER',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'GIT_EXTERNAL_DIFF',
  'GIT_ASKPASS',
  'GIT_PROXY_COMMAND',
  'PAGER',
  'MANPAGER',
  'SYSTEMD_PAGER',
  'EDITOR',
  'VISUAL',
  'SUDO_EDITOR',
  'SSH_ASKPASS',
  'SUDO_ASKPASS',
  'RSYNC_RSH',
  'LESSOPEN',
  'LESSCLOSE',
  'PROMPT_COMMAND',
  'BASH_ENV',
  'ENV',
]);

/** git configuration keys (lower-cased) whose value git runs as a shell command line. */
const GIT_COMMAND_KEYS =
  /^(?:core\.(?:sshcommand|pager|editor|fsmonitor|askpass|gitproxy)|sequence\.editor|diff\.external|gpg(?:\.[^.]+)?\.program|pager\.[^.]+|uploadpack\.packobjectshook|(?:diff|difftool|mergetool|merge|filter)\..+\.(?:command|cmd|textconv|driver|clean|smudge|process))$/;

/** `NAME=VALUE` (before a command, exported, or given to `env`): a command variable's value is read as shell. */
export function checkCommandVariable(name: string, value: ShellWord, env: ShellCommandEnv): void {
  if (COMMAND_VARIABLES.has(name)) runCodeWord(value, 'shell', env);
}

/**
 * A git setting (`git -c KEY=VALUE`, `git config KEY VALUE`) that git runs: a command line, or for an alias, the
 * shell command after `!` or else the git command it expands to (`alias.up='push --force'` is `git push --force`).
 */
export function checkGitSetting(key: string, value: ShellWord, env: ShellCommandEnv): void {
  const name = key.toLowerCase();
  const bang = value.value.startsWith('!');
  const rest = { ...value, value: value.value.slice(1) };
  if (name.startsWith('alias.')) runCodeWord(bang ? rest : { ...value, value: `git ${value.value}` }, 'shell', env);
  else if (/^credential(?:\..+)?\.helper$/.test(name)) {
    if (bang) runCodeWord(rest, 'shell', env);
  } else if (GIT_COMMAND_KEYS.test(name)) runCodeWord(value, 'shell', env);
}
