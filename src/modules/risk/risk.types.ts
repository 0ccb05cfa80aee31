/**
 * Every rule the risk detector can report.
 *
 * - `recursive-delete`: deletes a directory tree (rm -r, find -delete, rsync --delete, shutil.rmtree, git rm -r, aws s3 rm --recursive ...).
 * - `drop`: DROP TABLE / DATABASE / SCHEMA / ..., ALTER TABLE ... DROP COLUMN, dropdb, redis FLUSHALL.
 * - `truncate`: TRUNCATE of a table.
 * - `unscoped-delete` / `unscoped-update`: DELETE / UPDATE without a real WHERE (none, commented out, or a tautology).
 * - `force-push`: git push that rewrites remote history (--force, -f, +refspec, --force-with-lease, --mirror).
 * - `remote-delete`: git push that deletes remote refs (--delete, -d, :branch, --prune).
 * - `hard-reset`: git reset --hard.
 * - `clean`: git clean that really deletes untracked files (-f without -n).
 * - `discard`: throws away uncommitted work (git checkout -- ., git restore ., git stash clear ...).
 * - `branch-delete`: git branch -D (force delete of a local branch).
 * - `disk-wipe`: mkfs, wipefs, dd / shred onto a block device.
 * - `obfuscated`: code that is decoded before it runs (base64 piped to a shell, exec(b64decode(...))).
 * - `opaque`: code that runs but cannot be inspected (eval "$X", curl | sh, psql -f file, nesting too deep,
 *   a command word built at run time: `$X`, `"$@"`, `${a[@]}`).
 * - `fork-bomb`: processes that spawn themselves without end (`:(){ :|:& };:`, `while true; do cmd & done`, `fork while fork`).
 * - `permission-change`: chmod / chown / chgrp / setfacl of the root, a top-level or home directory (recursive),
 *   or of system files (/etc, /boot, /bin ...).
 * - `system-file-overwrite`: writes, truncates, shreds, moves or deletes system files (`> /etc/passwd`,
 *   `tee /etc/hosts`, `truncate -s 0 /etc/x`, `shred /boot/x`, `mv / x`, `cp x /bin/ls`, `sed -i ... /etc/x`).
 * - `infrastructure-destroy`: tears down infrastructure, its volumes or its backups (terraform / tofu / pulumi destroy,
 *   kubectl delete of namespaces, volumes or `--all`, helm uninstall, docker system / volume prune, compose down -v,
 *   zfs / zpool destroy, lvremove, crontab -r, vssadmin delete shadows, az group delete, gcloud projects delete,
 *   aws cloudformation delete-stack, aws ec2 terminate-instances, `Get-Process | Stop-Process`, `kill -9 -1`: every process stopped, `wsl --unregister`).
 */
export const RISK_RULES = [
  'recursive-delete',
  'drop',
  'truncate',
  'unscoped-delete',
  'unscoped-update',
  'force-push',
  'remote-delete',
  'hard-reset',
  'clean',
  'discard',
  'branch-delete',
  'disk-wipe',
  'obfuscated',
  'opaque',
  'fork-bomb',
  'permission-change',
  'system-file-overwrite',
  'infrastructure-destroy',
] as const;

/** One rule of {@link RISK_RULES}. */
export type RiskRule = (typeof RISK_RULES)[number];

/** One hit of one rule. */
export interface RiskMatch {
  rule: RiskRule;
  /** The offending snippet, trimmed to about 200 characters. */
  match: string;
  /** Where in tool arguments the snippet was found, e.g. `command` or `steps[1].sql`; absent for plain text. */
  path?: string;
}

/** The outcome of one evaluation: `risky` is true exactly when `rules` is not empty. */
export interface RiskVerdict {
  risky: boolean;
  rules: RiskMatch[];
}

/** How to read a text: as a shell command line, as SQL, or guess (`auto`, the default). */
export type RiskHint = 'shell' | 'sql' | 'auto';
