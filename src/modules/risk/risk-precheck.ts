/**
 * Every word a rule can start from. Text without any of them (after quotes and backslashes are removed,
 * so `r''m` and `\rm` still count) cannot match, and skips parsing. Keep in sync with the rules.
 */
const TRIGGER = new RegExp(
  [
    '\\b(?:rm|g?rm|rmdir|rmtree|rmsync|rimraf|removedirs|remove_tree|removesync|emptydir\\w*|rm_rf?|remove_dir|remove_entry\\w*|fileutils|unlink)\\b',
    '\\b(?:drop\\w*|truncate|delete\\w*|update\\w*|alter|flushall|flushdb|remove|mysqladmin)\\b',
    '\\bgit\\b',
    '\\b(?:g?find|rsync|dd|shred|wipefs|mkfs|mke2fs|mkswap|newfs|diskutil|aws|gsutil|gcloud|hdfs|hadoop)\\b',
    '\\b(?:eval|exec|execute|prepare|sp_executesql|source|xargs|sudo|doas|su|\\w*sh|python[\\d.]*|pypy\\w*|node\\w*|bun|deno|perl\\w*|ruby\\w*|php\\w*)\\b',
    '\\b(?:rd|del|erase|remove-item|ri|stop-process|spps|stop-service|spsv|kill|killall5|iex|invoke-expression|clear-disk|powershell|pwsh|cmd|format|awk|gawk|mawk|nawk|trap|at|batch|parallel|script)\\b|\\.(?:sh|py|js|pl|rb|ps1)\\b',
    '\\b(?:destroy|uninstall|unregister|prune|labelclear|lvremove|vgremove|pvremove|crontab|terminate-instances|compose)\\b',
    // Framework database resets (`prisma migrate reset`, `rake db:purge`, `artisan migrate:fresh`, `db:wipe`).
    '\\b(?:reset|reset_db|purge|flush|fresh|refresh|wipe|truncate_all)\\b|schema:load|structure:load',
    '\\b(?:psql|mysql|mariadb|sqlite3?|sqlcmd|duckdb|clickhouse\\w*|cockroach|mongo\\w*|redis-cli)\\b',
    '\\b(?:base64|base32|basenc|xxd|openssl|uudecode|rev|gunzip|zcat|bzcat|xzcat|b64decode|atob|fromcharcode)\\b',
    "\\$\\(|`|\\$'|<\\(|>\\(|\\\\x[0-9a-f]|/dev/|(?:^|[\\s;&|(])\\.\\s",
    '(?:^|\\s)-[a-z]*r[a-z]*\\b|--recursive|--force|--hard|--delete|--mirror',
    // Permission changes, writes and moves of system files, fork bombs, command words built at run time.
    '\\b(?:chmod|chown|chgrp|chattr|setfacl|tee|mv|cp|install|ln|sed|unlink|fork|wget|curl|tar|unzip|icacls|takeown)\\b|>\\|?\\s*[~/$"\']|/(?:etc|boot|s?bin|lib\\w*|usr|proc|sys|root|var/log)(?:/|\\b)',
    // Windows system trees (`C:\Windows`, `c:/program files`, `%SystemRoot%`, `$env:windir`, `\.ssh`).
    '\\b[a-z]:[\\\\/]+(?:windows|program files)\\b|%(?:systemroot|windir|programfiles)|\\$\\{?env:(?:systemroot|windir|programfiles)|\\.ssh\\b',
    '\\(\\s*\\)\\s*\\{|\\bfunction\\s|\\b(?:while|until)\\b|\\bfor\\s*\\(\\(|(?:^|[\\s;&|({"\'])\\$',
  ].join('|'),
  'm',
);

/** False when the text certainly matches no rule; true means "parse it". */
export function mayBeRisky(text: string): boolean {
  const lower = text.toLowerCase();
  return TRIGGER.test(lower) || TRIGGER.test(lower.replace(/['"\\]/g, ''));
}
