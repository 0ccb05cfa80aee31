import type { ShellCommandEnv, ShellCommandHandler } from './risk-shell-command';
import { hasOption, parseOptions } from './risk-shell-options';
import type { ShellWord } from './risk-shell-word';

/**
 * Commands that tear down infrastructure or the data and backups it holds: `infrastructure-destroy`.
 * Each reads its own subcommand words; routine deletes of one object (`kubectl delete pod x`) and previews
 * (`--dry-run`, `plan -destroy`, `--preview-only`) are not risky.
 */

/** The argument words lowercased (Windows tools and cloud CLIs take their verbs in any letter case). */
function wordsOf(args: ShellWord[]): string[] {
  return args.map((w) => w.value.toLowerCase());
}

function destroys(env: ShellCommandEnv): void {
  env.scan.report('infrastructure-destroy', env.snippet);
}

/** A `--dry-run` that really is one (`--dry-run=none` runs: kubectl). */
function dryRun(words: string[]): boolean {
  return words.some((w) => w === '--dry-run' || (w.startsWith('--dry-run=') && w !== '--dry-run=none'));
}

/** `terraform destroy`, `terraform apply -destroy` (also tofu, terragrunt `run-all destroy`); `plan -destroy` only plans. */
function terraform(args: ShellWord[], env: ShellCommandEnv): void {
  const words = wordsOf(args);
  if (words.includes('destroy')) return destroys(env);
  if (words.includes('apply') && words.some((w) => w === '-destroy' || w === '--destroy')) destroys(env);
}

/** `pulumi destroy` (not `--preview-only`), `pulumi stack rm`. */
function pulumi(args: ShellWord[], env: ShellCommandEnv): void {
  const words = wordsOf(args);
  if (words.includes('destroy') && !words.includes('--preview-only')) return destroys(env);
  if (words.includes('stack') && (words.includes('rm') || words.includes('remove'))) destroys(env);
}

/** Resources whose delete takes everything in them (a namespace), stored data (volumes) or the cluster's shape. */
const KUBE_WIDE_RESOURCE =
  /^(?:ns|namespaces?|pv|pvc|persistentvolumes?|persistentvolumeclaims?|projects?|crds?|customresourcedefinitions?|no|nodes?|all|statefulsets?|sts)(?:[/.,].*)?$/;

/** `kubectl delete` of namespaces, volumes, CRDs, nodes, `all`, or with `--all` / `-A` (also oc). */
function kubectl(args: ShellWord[], env: ShellCommandEnv): void {
  const words = wordsOf(args);
  const verb = words.indexOf('delete');
  if (verb < 0 || dryRun(words)) return;
  const after = words.slice(verb + 1);
  const opts = parseOptions(args.slice(verb + 1), { withValue: 'nlf', longWithValue: ['namespace', 'selector'] });
  if (
    hasOption(opts, 'A', 'all', 'all-namespaces') ||
    after.some((w) => w.split(',').some((r) => KUBE_WIDE_RESOURCE.test(r)))
  )
    destroys(env);
}

/** `helm uninstall` / `delete` / `del` / `un` (not `--dry-run`). */
function helm(args: ShellWord[], env: ShellCommandEnv): void {
  const words = wordsOf(args);
  const verb = words.find((w) => !w.startsWith('-'));
  if (verb && /^(?:uninstall|delete|del|un)$/.test(verb) && !dryRun(words)) destroys(env);
}

/** `$(docker ps -aq)` (`container ls --all`, podman, nerdctl) with options only, no filter: every container there is. */
const EVERY_CONTAINER =
  /^"?\$\(\s*(?:docker|podman|nerdctl)\s+(?:container\s+)?(?:ps|ls|list)((?:\s+(?:-[a-z]+|--[a-z-]+))*)\s*\)"?$/i;

function listsEveryContainer(word: ShellWord): boolean {
  const options = EVERY_CONTAINER.exec(word.raw)?.[1];
  return options !== undefined && /(?:^|\s)(?:-[a-z]*a[a-z]*|--all)(?=\s|$)/i.test(options);
}

/**
 * `docker system prune`, `docker volume prune|rm`, `docker compose down -v`, and `docker rm $(docker ps -aq)` (every
 * container, as `kubectl delete pods --all`); also podman, nerdctl.
 */
function containerEngine(args: ShellWord[], env: ShellCommandEnv): void {
  const words = wordsOf(args);
  if (words.includes('system') && words.includes('prune')) return destroys(env);
  if (words.includes('volume') && words.some((w) => w === 'prune' || w === 'rm' || w === 'remove'))
    return destroys(env);
  const remove = words.findIndex((w) => w === 'rm' || w === 'remove');
  if (remove >= 0 && args.slice(remove + 1).some(listsEveryContainer)) return destroys(env);
  if (words.includes('compose')) composeDown(args.slice(words.indexOf('compose') + 1), env);
}

/** `docker-compose down -v` / `--volumes`: the project's named volumes, and their data, removed. */
function composeDown(args: ShellWord[], env: ShellCommandEnv): void {
  const down = args.findIndex((w) => w.value === 'down');
  if (down < 0) return;
  if (hasOption(parseOptions(args.slice(down + 1), { withValue: 't' }), 'v', 'volumes')) destroys(env);
}

/** `zfs destroy`, `zpool destroy` / `labelclear`, `lvremove` / `vgremove` / `pvremove`: volumes and their data gone. */
function zfs(args: ShellWord[], env: ShellCommandEnv): void {
  const verb = wordsOf(args).find((w) => !w.startsWith('-'));
  if (verb === 'destroy' || verb === 'labelclear') destroys(env);
}

function volumeRemover(args: ShellWord[], env: ShellCommandEnv): void {
  if (args.some((w) => !w.value.startsWith('-'))) destroys(env);
}

/** `crontab -r`: every scheduled job of the user removed, without asking. */
function crontab(args: ShellWord[], env: ShellCommandEnv): void {
  if (parseOptions(args, { withValue: 'u' }).short.has('r')) destroys(env);
}

/** `vssadmin delete shadows`, `wmic shadowcopy delete`, `wbadmin delete ...`: Windows backups destroyed. */
function windowsBackups(args: ShellWord[], env: ShellCommandEnv): void {
  const words = wordsOf(args);
  if (words.includes('delete') || words.includes('resize')) destroys(env);
}

/** `az group delete` (everything in a resource group), `az ... delete` of clusters, servers, accounts. */
function az(args: ShellWord[], env: ShellCommandEnv): void {
  const words = wordsOf(args);
  if (!words.includes('delete') || words.includes('--dry-run')) return;
  if (words.some((w) => /^(?:group|aks|vm|vmss|storage|account|server|cluster|keyvault)$/.test(w))) destroys(env);
}

/**
 * `kill -9 -1`, `kill -- -1`: a signal to every process the user may signal (to all of them as root), and
 * `killall5`: the machine taken down, as `Get-Process | Stop-Process` does on Windows.
 */
function killEveryProcess(args: ShellWord[], env: ShellCommandEnv): void {
  const words = args.map((w) => w.value);
  // The signal comes first (`-9`, `-KILL`, `-s KILL`, `-n 9`), then an optional `--`, then the process ids.
  let at = words[0] === '-s' || words[0] === '-n' ? 2 : words[0]?.startsWith('-') && words[0] !== '--' ? 1 : 0;
  if (words[at] === '--') at++;
  if (words.slice(at).includes('-1')) destroys(env);
}

/** Az PowerShell's removals of what `az ... delete` is judged on (a resource group, VM, cluster ...), unless `-WhatIf`. */
function azPowerShellRemove(args: ShellWord[], env: ShellCommandEnv): void {
  if (!wordsOf(args).some((w) => /^-whatif(?::\$true)?$/.test(w))) destroys(env);
}

const AZ_POWERSHELL_REMOVALS = [
  'remove-azresourcegroup',
  'remove-azvm',
  'remove-azvmss',
  'remove-azakscluster',
  'remove-azstorageaccount',
  'remove-azsqlserver',
  'remove-azkeyvault',
];

/** `wsl --unregister DISTRO`: the distribution's disk, and every file in it, deleted. */
function wsl(args: ShellWord[], env: ShellCommandEnv): void {
  if (wordsOf(args).includes('--unregister')) destroys(env);
}

/** Commands that destroy infrastructure, its volumes or its backups. */
export const INFRASTRUCTURE_COMMANDS: Record<string, ShellCommandHandler> = {
  terraform,
  tofu: terraform,
  terragrunt: terraform,
  pulumi,
  kubectl,
  oc: kubectl,
  helm,
  docker: containerEngine,
  podman: containerEngine,
  nerdctl: containerEngine,
  'docker-compose': composeDown,
  'podman-compose': composeDown,
  zfs,
  zpool: zfs,
  lvremove: volumeRemover,
  vgremove: volumeRemover,
  pvremove: volumeRemover,
  crontab,
  kill: killEveryProcess,
  wsl,
  killall5: (_args, env) => destroys(env),
  vssadmin: windowsBackups,
  wmic: (args, env) => (wordsOf(args).includes('shadowcopy') ? windowsBackups(args, env) : undefined),
  wbadmin: windowsBackups,
  az,
  ...Object.fromEntries(AZ_POWERSHELL_REMOVALS.map((name) => [name, azPowerShellRemove])),
};
