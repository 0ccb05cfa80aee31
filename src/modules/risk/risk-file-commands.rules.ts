import type { ShellCommandEnv, ShellCommandHandler } from './risk-shell-command';
import { hasOption, parseOptions } from './risk-shell-options';
import { BLOCK_DEVICE } from './risk-shell.syntax';
import { ShellWord, literalWord } from './risk-shell-word';
import { isSystemPath, isSystemWord } from './risk-system-paths';
import { plainPowerShell, removeItem, windowsWords } from './risk-windows-commands.rules';
import { removeItemParameter } from './risk-powershell-parameters';

/**
 * rm: a tree delete when recursive, or when it runs over a generated list (`find -exec rm {} +`,
 * `... | xargs rm`); deleting a system file (`rm /etc/passwd`) overwrites the system.
 */
function rm(args: ShellWord[], env: ShellCommandEnv): void {
  readRm(args, env);
  // PowerShell's `rm .\build\ -r -fo`: bash joined the path and `-r` into one word across the escaped space.
  const split = windowsWords(args);
  if (split.length !== args.length) readRm(split, env);
}

/** One reading of rm's words: Remove-Item's when its options are PowerShell's only, GNU (or BSD) rm's otherwise. */
function readRm(args: ShellWord[], env: ShellCommandEnv): void {
  const options = args.map((w) => plainPowerShell(w.value)).filter((v) => v.length > 1 && v.startsWith('-'));
  if (
    options.length &&
    !options.every((v) => UNIX_RM_OPTION.test(v)) &&
    options.every((v) => removeItemParameter(v) !== undefined)
  ) {
    removeItem(args, env);
    return;
  }
  // GNU rm reads options after operands too (`rm dir -rf`), so every word before `--` counts.
  const opts = parseOptions(args);
  if (hasOption(opts, 'rR', 'recursive') || env.many) env.scan.report('recursive-delete', env.snippet);
  else if ([...opts.operands, ...opts.afterDashDash].some((w) => isSystemWord(w, env.cwd)))
    env.scan.report('system-file-overwrite', env.snippet);
}

/**
 * Options GNU or BSD rm takes (`-rf`, `--force`). An rm given others that are all Remove-Item's parameters or their
 * prefixes (`-Force`, `-fo`, `-ErrorAction`: GNU rm rejects them, and to it `-Force` would be `-r`) is PowerShell's.
 */
const UNIX_RM_OPTION = /^-[fiIrRdvPWx]+$|^--/;

/** unlink / shred of one file; over a generated list they delete (or destroy) a whole tree. */
function fileDestroyer(args: ShellWord[], env: ShellCommandEnv): void {
  if (args.some((w) => BLOCK_DEVICE.test(w.value))) env.scan.report('disk-wipe', env.snippet);
  else if (env.many) env.scan.report('recursive-delete', env.snippet);
  else if (args.some((w) => isSystemWord(w, env.cwd))) env.scan.report('system-file-overwrite', env.snippet);
}

/** How many find starting points a `-exec` command is checked with (each as its `{}`). */
const MAX_FIND_STARTS = 4;

/**
 * find: `-delete`, and the command of each `-exec` / `-execdir` / `-ok`, run over everything found:
 * `{}` is checked as each starting point (`find / -exec chmod 777 {} +` is `chmod 777` over `/`).
 */
function find(args: ShellWord[], env: ShellCommandEnv): void {
  const firstTest = args.findIndex((w) => /^[-(!]/.test(w.value));
  const starts = (firstTest < 0 ? args : args.slice(0, firstTest)).slice(0, MAX_FIND_STARTS);
  if (!starts.length) starts.push(literalWord('.'));
  for (let i = 0; i < args.length; i++) {
    const word = args[i].value;
    if (word === '-delete') env.scan.report('recursive-delete', env.snippet);
    if (word === '-exec' || word === '-execdir' || word === '-ok' || word === '-okdir') {
      const end = args.findIndex((w, j) => j > i && (w.value === ';' || w.value === '+'));
      const inner = args.slice(i + 1, end < 0 ? args.length : end);
      for (const start of inner.length ? starts : [])
        env.run(
          inner.map((w) => (w.value === '{}' ? start : w)),
          false,
          true,
        );
      i = end < 0 ? args.length : end;
    }
  }
}

/** fd (fd-find): `-x CMD` / `--exec CMD` runs CMD on each file found, `-X` / `--exec-batch` on all of them at once. */
function fdFind(args: ShellWord[], env: ShellCommandEnv): void {
  const at = args.findIndex((w) => /^(?:-x|-X|--exec|--exec-batch)$/.test(w.value));
  if (at < 0) return;
  const end = args.findIndex((w, i) => i > at && w.value === ';');
  const inner = args.slice(at + 1, end < 0 ? args.length : end);
  if (inner.length) env.run(inner, false, true);
}

/** rsync --delete removes what the source lacks; a local system path as destination is overwritten. A dry run does nothing. */
function rsync(args: ShellWord[], env: ShellCommandEnv): void {
  const opts = parseOptions(args, {
    withValue: 'eBT',
    longWithValue: ['rsh', 'exclude', 'include', 'filter', 'temp-dir', 'backup-dir', 'chmod', 'chown', 'rsync-path'],
  });
  if (hasOption(opts, 'n', 'dry-run')) return;
  if ([...opts.long].some((name) => /^del(?:ete(?:-\w+)?)?$/.test(name)))
    env.scan.report('recursive-delete', env.snippet);
  const operands = [...opts.operands, ...opts.afterDashDash];
  const dest = operands.length > 1 ? operands[operands.length - 1].value : '';
  if (!/^[^/]*:/.test(dest) && isSystemPath(dest, env.cwd)) env.scan.report('system-file-overwrite', env.snippet);
}

function diskWipe(args: ShellWord[], env: ShellCommandEnv): void {
  if (args.some((w) => BLOCK_DEVICE.test(w.value))) env.scan.report('disk-wipe', env.snippet);
}

/** `sgdisk --zap-all` / `-Z`, `-z`, `-o`: the partition tables of a disk destroyed. */
function sgdisk(args: ShellWord[], env: ShellCommandEnv): void {
  const opts = parseOptions(args, { withValue: 'acdnpt', longWithValue: ['delete', 'new', 'typecode'] });
  if (hasOption(opts, 'Zzo', 'zap-all', 'zap', 'clear')) diskWipe(args, env);
}

/** `parted DEV rm N` / `mklabel` / `mktable`: a partition, or the whole partition table, of a disk removed. */
function parted(args: ShellWord[], env: ShellCommandEnv): void {
  if (args.some((w) => /^(?:rm|mklabel|mktable)$/i.test(w.value))) diskWipe(args, env);
}

/** macOS `diskutil eraseDisk|eraseVolume|zeroDisk|randomDisk|secureErase|partitionDisk|reformat`: its target (`disk2`) wiped. */
function diskutil(args: ShellWord[], env: ShellCommandEnv): void {
  const verb = args.find((w) => !w.value.startsWith('-'))?.value ?? '';
  if (/^(?:erase(?:disk|volume)|zerodisk|randomdisk|secureerase|partitiondisk|reformat)$/i.test(verb))
    env.scan.report('disk-wipe', env.snippet);
}

/** `cryptsetup luksFormat DEV` / `erase DEV`: the disk's data (or its keys) made unreadable. */
function cryptsetup(args: ShellWord[], env: ShellCommandEnv): void {
  if (args.some((w) => /^(?:luksFormat|erase|luksErase)$/i.test(w.value))) diskWipe(args, env);
}

function dd(args: ShellWord[], env: ShellCommandEnv): void {
  const target = args.find((w) => w.value.startsWith('of='))?.value.slice(3);
  if (target && BLOCK_DEVICE.test(target)) env.scan.report('disk-wipe', env.snippet);
  else if (target && isSystemPath(target, env.cwd)) env.scan.report('system-file-overwrite', env.snippet);
}

/** Cloud calls that delete a database or table outright. */
const CLOUD_DROP = /^delete-(?:table|db-instance|db-cluster|database|bucket|cluster|keyspace)$/;

/** Cloud calls that tear down a stack or its machines. */
const CLOUD_TEARDOWN = /^(?:delete-stack|delete-stack-set|terminate-instances|delete-nodegroup)$/;

/** `aws s3 rm --recursive`, `aws s3 rb --force`, `aws dynamodb delete-table`. */
function aws(args: ShellWord[], env: ShellCommandEnv): void {
  const words = args.map((w) => w.value);
  if (words.some((w) => CLOUD_DROP.test(w))) env.scan.report('drop', env.snippet);
  if (words.some((w) => CLOUD_TEARDOWN.test(w)) && !words.includes('--dry-run'))
    env.scan.report('infrastructure-destroy', env.snippet);
  const s3 = words.indexOf('s3');
  if (s3 < 0) return;
  const verb = words[s3 + 1];
  if (words.includes('--dryrun')) return;
  if ((verb === 'rm' && words.includes('--recursive')) || (verb === 'rb' && words.includes('--force'))) {
    env.scan.report('recursive-delete', env.snippet);
  }
  if (verb === 'sync' && words.includes('--delete')) env.scan.report('recursive-delete', env.snippet);
}

/** `gsutil [-m] rm -r`, `gcloud storage rm -r`, `hdfs dfs -rm -r`; `gcloud projects delete` (and clusters, instances). */
function objectStoreRm(args: ShellWord[], env: ShellCommandEnv): void {
  const words = args.map((w) => w.value);
  if (
    words.includes('sql') &&
    words.includes('delete') &&
    (words.includes('instances') || words.includes('databases'))
  ) {
    env.scan.report('drop', env.snippet);
  }
  if (words.includes('delete') && words.some((w) => w === 'projects' || w === 'clusters' || w === 'instances'))
    env.scan.report('infrastructure-destroy', env.snippet);
  const verb = words.findIndex((w) => w === 'rm' || w === '-rm' || w === 'rsync');
  if (verb < 0) return;
  const flags = parseOptions(args.slice(verb + 1));
  if (
    words[verb] === 'rsync'
      ? flags.short.has('d') || flags.long.has('delete-unmatched-destination-objects')
      : hasOption(flags, 'rR', 'recursive')
  ) {
    env.scan.report('recursive-delete', env.snippet);
  }
}

/** Commands that delete file trees or wipe disks. */
export const FILE_COMMANDS: Record<string, ShellCommandHandler> = {
  rm,
  find,
  fd: fdFind,
  fdfind: fdFind,
  rsync,
  dd,
  shred: fileDestroyer,
  unlink: fileDestroyer,
  wipefs: diskWipe,
  blkdiscard: diskWipe,
  sgdisk,
  cryptsetup,
  parted,
  diskutil,
  mkfs: diskWipe,
  mke2fs: diskWipe,
  aws,
  gsutil: objectStoreRm,
  gcloud: objectStoreRm,
  hdfs: objectStoreRm,
  hadoop: objectStoreRm,
};
