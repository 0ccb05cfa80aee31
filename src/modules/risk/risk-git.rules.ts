import { checkGitSetting } from './risk-command-settings';
import type { ShellCommandEnv, ShellCommandHandler } from './risk-shell-command';
import { ParsedOptions, hasOption, parseOptions } from './risk-shell-options';
import type { ShellWord } from './risk-shell-word';

/** git's own options before the subcommand (`git -C dir -c k=v push`). */
const GIT_GLOBAL = {
  withValue: 'Cc',
  longWithValue: ['git-dir', 'work-tree', 'namespace', 'super-prefix', 'config-env', 'exec-path'],
  stopAtOperand: true,
};

type GitCheck = (opts: ParsedOptions, env: ShellCommandEnv) => void;

const WHOLE_TREE = new Set(['.', './', '*', ':/', ':/*', ':(top)', '..', '../']);

function push(opts: ParsedOptions, env: ShellCommandEnv): void {
  if (dryRun(opts)) return;
  const refspecs = opts.operands.slice(1).concat(opts.afterDashDash);
  const force =
    opts.short.has('f') ||
    ['force', 'force-with-lease', 'mirror'].some((name) => opts.long.has(name)) ||
    // A `+` refspec forces, before or after `--` (`git push origin -- +main`).
    [...opts.operands, ...opts.afterDashDash].some((w) => w.value.startsWith('+'));
  if (force) env.scan.report('force-push', env.snippet);
  const deletes = hasOption(opts, 'd', 'delete', 'prune') || refspecs.some((w) => /^\+?:[^:]/.test(w.value));
  if (deletes) env.scan.report('remote-delete', env.snippet);
}

function reset(opts: ParsedOptions, env: ShellCommandEnv): void {
  if (opts.long.has('hard')) env.scan.report('hard-reset', env.snippet);
}

function clean(opts: ParsedOptions, env: ShellCommandEnv): void {
  if (hasOption(opts, 'f', 'force') && !hasOption(opts, 'n', 'dry-run')) env.scan.report('clean', env.snippet);
}

function checkout(opts: ParsedOptions, env: ShellCommandEnv): void {
  const discards =
    hasOption(opts, 'f', 'force') ||
    opts.afterDashDash.length > 0 ||
    opts.operands.some((w) => WHOLE_TREE.has(w.value));
  if (discards) env.scan.report('discard', env.snippet);
}

function restore(opts: ParsedOptions, env: ShellCommandEnv): void {
  const worktree = hasOption(opts, 'W', 'worktree') || !hasOption(opts, 'S', 'staged');
  if (worktree && opts.operands.length + opts.afterDashDash.length > 0) env.scan.report('discard', env.snippet);
}

function switchBranch(opts: ParsedOptions, env: ShellCommandEnv): void {
  if (hasOption(opts, 'f', 'force', 'discard-changes')) env.scan.report('discard', env.snippet);
}

function stash(opts: ParsedOptions, env: ShellCommandEnv): void {
  const verb = opts.operands[0]?.value;
  if (verb === 'clear' || verb === 'drop') env.scan.report('discard', env.snippet);
}

function branch(opts: ParsedOptions, env: ShellCommandEnv): void {
  const forced = opts.short.has('D') || (hasOption(opts, 'd', 'delete') && hasOption(opts, 'f', 'force'));
  if (forced) env.scan.report('branch-delete', env.snippet);
}

function updateRef(opts: ParsedOptions, env: ShellCommandEnv): void {
  if (opts.short.has('d')) env.scan.report('branch-delete', env.snippet);
}

function gitRm(opts: ParsedOptions, env: ShellCommandEnv): void {
  if (opts.short.has('r') && !opts.long.has('cached') && !dryRun(opts))
    env.scan.report('recursive-delete', env.snippet);
}

/** `git config [--global ...] [set] KEY VALUE`: a value git will run later is read now. */
function config(opts: ParsedOptions, env: ShellCommandEnv): void {
  const operands = opts.operands[0]?.value === 'set' ? opts.operands.slice(1) : opts.operands;
  if (operands.length >= 2) checkGitSetting(operands[0].value, operands[1], env);
}

/** `-n` / `--dry-run` (the last of `--dry-run` / `--no-dry-run` wins): git reports what it would do and does nothing. */
function dryRun(opts: ParsedOptions): boolean {
  return hasOption(opts, 'n', 'dry-run') && !opts.long.has('no-dry-run');
}

const SUBCOMMANDS: Record<string, { check: GitCheck; withValue?: string; longWithValue?: string[] }> = {
  push: { check: push, withValue: 'o', longWithValue: ['repo', 'receive-pack', 'exec', 'push-option'] },
  reset: { check: reset },
  clean: { check: clean, withValue: 'e', longWithValue: ['exclude'] },
  checkout: { check: checkout, withValue: 'bB', longWithValue: ['orphan', 'conflict', 'pathspec-from-file'] },
  restore: { check: restore, withValue: 's', longWithValue: ['source', 'pathspec-from-file'] },
  switch: { check: switchBranch, withValue: 'cC', longWithValue: ['create', 'force-create', 'orphan'] },
  stash: { check: stash, withValue: 'm', longWithValue: ['message'] },
  branch: {
    check: branch,
    withValue: 'u',
    longWithValue: ['set-upstream-to', 'contains', 'merged', 'no-merged', 'points-at', 'sort', 'format'],
  },
  rm: { check: gitRm, longWithValue: ['pathspec-from-file'] },
  'update-ref': { check: updateRef, withValue: 'm' },
  config: { check: config, withValue: 'f', longWithValue: ['file', 'blob', 'type', 'default', 'comment', 'value'] },
};

/** The long options the checks look for that destroy work. */
const DESTRUCTIVE_LONG = ['force', 'force-with-lease', 'mirror', 'delete', 'prune', 'hard', 'discard-changes'];

/**
 * git takes any unique prefix of a long option (`--har` is `--hard`, `--mirr` is `--mirror`): a prefix of a destructive
 * one counts as it (an ambiguous prefix makes git refuse the command, so reading it as the destructive one is safe).
 */
function withAbbreviations(opts: ParsedOptions): ParsedOptions {
  for (const given of [...opts.long])
    for (const name of DESTRUCTIVE_LONG) if (given && name.startsWith(given)) opts.long.add(name);
  return opts;
}

function git(args: ShellWord[], env: ShellCommandEnv): void {
  const global = parseOptions(args, GIT_GLOBAL);
  // `git -c core.pager='...' log`: settings whose value git runs.
  for (const setting of global.values.get('c') ?? []) {
    const eq = setting.value.indexOf('=');
    if (eq > 0) checkGitSetting(setting.value.slice(0, eq), { ...setting, value: setting.value.slice(eq + 1) }, env);
  }
  const [sub, ...rest] = global.rest;
  const rule = sub && SUBCOMMANDS[sub.value];
  if (!rule) return;
  // `git push "$@"`: arguments set elsewhere can carry --force.
  if (rest.some((w) => w.spreads)) env.scan.report('opaque', env.snippet);
  rule.check(
    withAbbreviations(parseOptions(rest, { withValue: rule.withValue, longWithValue: rule.longWithValue })),
    env,
  );
}

/** git subcommands that destroy work: force push, remote deletes, hard reset, clean, discards, branch -D, rm -r. */
export const GIT_COMMANDS: Record<string, ShellCommandHandler> = { git };
