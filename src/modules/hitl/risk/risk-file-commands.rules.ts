import type { ShellCommandEnv, ShellCommandHandler } from './risk-shell-command';
import { hasOption, parseOptions } from './risk-shell-options';
import { BLOCK_DEVICE } from './risk-shell.syntax';
import type { ShellWord } from './risk-shell-word';


function rm(args: ShellWord[], env: ShellCommandEnv): void {
  // GNU rm reads options after operands too (`rm dir -rf`), so every word before `--` counts.
  if (hasOption(parseOptions(args), 'rR', 'recursive')) env.scan.report('recursive-delete', env.snippet);
}

function find(args: ShellWord[], env: ShellCommandEnv): void {
  for (let i = 0; i < args.length; i++) {
    const word = args[i].value;
    if (word === '-delete') env.scan.report('recursive-delete', env.snippet);
    if (word === '-exec' || word === '-execdir' || word === '-ok' || word === '-okdir') {
      const end = args.findIndex((w, j) => j > i && (w.value === ';' || w.value === '+'));
      const inner = args.slice(i + 1, end < 0 ? args.length : end);
      if (inner.length) env.run(inner, false);
      i = end < 0 ? args.length : end;
    }
  }
}

function rsync(args: ShellWord[], env: ShellCommandEnv): void {
  if (args.some((w) => /^--del(?:ete(?:-\w+)?)?(?:=|$)/.test(w.value))) env.scan.report('recursive-delete', env.snippet);
}

function diskWipe(args: ShellWord[], env: ShellCommandEnv): void {
  if (args.some((w) => BLOCK_DEVICE.test(w.value))) env.scan.report('disk-wipe', env.snippet);
}

function dd(args: ShellWord[], env: ShellCommandEnv): void {
  if (args.some((w) => w.value.startsWith('of=') && BLOCK_DEVICE.test(w.value.slice(3)))) env.scan.report('disk-wipe', env.snippet);
}

/** Cloud calls that delete a database or table outright. */
const CLOUD_DROP = /^delete-(?:table|db-instance|db-cluster|database|bucket|cluster|keyspace)$/;

/** `aws s3 rm --recursive`, `aws s3 rb --force`, `aws dynamodb delete-table`. */
function aws(args: ShellWord[], env: ShellCommandEnv): void {
  const words = args.map((w) => w.value);
  if (words.some((w) => CLOUD_DROP.test(w))) env.scan.report('drop', env.snippet);
  const s3 = words.indexOf('s3');
  if (s3 < 0) return;
  const verb = words[s3 + 1];
  if ((verb === 'rm' && words.includes('--recursive')) || (verb === 'rb' && words.includes('--force'))) {
    env.scan.report('recursive-delete', env.snippet);
  }
  if (verb === 'sync' && words.includes('--delete')) env.scan.report('recursive-delete', env.snippet);
}

/** `gsutil [-m] rm -r`, `gcloud storage rm -r`, `hdfs dfs -rm -r`. */
function objectStoreRm(args: ShellWord[], env: ShellCommandEnv): void {
  const words = args.map((w) => w.value);
  if (words.includes('sql') && words.includes('delete') && (words.includes('instances') || words.includes('databases'))) {
    env.scan.report('drop', env.snippet);
  }
  const verb = words.findIndex((w) => w === 'rm' || w === '-rm' || w === 'rsync');
  if (verb < 0) return;
  const flags = parseOptions(args.slice(verb + 1));
  if (words[verb] === 'rsync' ? flags.short.has('d') || flags.long.has('delete-unmatched-destination-objects') : hasOption(flags, 'rR', 'recursive')) {
    env.scan.report('recursive-delete', env.snippet);
  }
}

/** Commands that delete file trees or wipe disks. */
export const FILE_COMMANDS: Record<string, ShellCommandHandler> = {
  rm,
  find,
  rsync,
  dd,
  shred: diskWipe,
  wipefs: diskWipe,
  mkfs: diskWipe,
  mke2fs: diskWipe,
  aws,
  gsutil: objectStoreRm,
  gcloud: objectStoreRm,
  hdfs: objectStoreRm,
  hadoop: objectStoreRm,
};
