/**
 * Lets an unprivileged bubblewrap reach folders behind parents it may not walk (a workspace under a 0700
 * data dir, /root/...). A root gateway starts `unshare --mount --propagation private` with this script:
 * in that private mount namespace (gone with its processes, never visible on the host) it mounts a tmpfs on
 * the stage folder, binds the workspace and each read-only source there, then execs `setpriv` + bubblewrap
 * as the sandbox user, which binds `$stage/workspace` and `$stage/m<i>` instead of the host paths.
 * Arguments: stage, workspace, each source, `--`, the command to exec. Run by bash, after
 * {@link SANDBOX_CLOSE_INHERITED_FDS}.
 */
export const SANDBOX_STAGE_SCRIPT = [
  'set -e',
  'stage=$1; workspace=$2; shift 2',
  'mount -t tmpfs -o mode=0755,size=64k gw-sandbox-stage "$stage"',
  'mkdir "$stage/workspace"; mount --bind "$workspace" "$stage/workspace"',
  'i=0',
  'while [ "$1" != -- ]; do',
  '  if [ -d "$1" ]; then mkdir "$stage/m$i"; else touch "$stage/m$i"; fi',
  '  mount --bind "$1" "$stage/m$i"; i=$((i+1)); shift',
  'done',
  'shift',
  'exec "$@"',
].join('\n');

/**
 * Ignores SIGXFSZ in everything the command runs (an ignored signal stays ignored across exec, through bubblewrap
 * and the shell): a write past RLIMIT_FSIZE then fails with EFBIG, which programs report as "File too large" naming
 * their file, as they report a full disk, instead of the kernel killing the writer without a word (for `echo x >> f`,
 * the shell, and the rest of the command with it). Run by bash before anything else.
 */
export const IGNORE_FILE_SIZE_SIGNAL = "trap '' XFSZ";

/** Where the stage script binds the workspace and the i-th read-only source. */
export const stagedWorkspace = (stage: string): string => `${stage}/workspace`;
export const stagedMount = (stage: string, i: number): string => `${stage}/m${i}`;

/**
 * Closes every fd above `keep` (3: the status fd; 4: the seccomp filter) before bubblewrap starts: the gateway
 * may have inherited fds without close-on-exec from whatever started it (a supervisor's pipe), and the sandbox
 * must not get them. bash, since dash cannot name an fd above 9.
 */
export function closeInheritedFds(keep: number): string {
  return `for fd in /proc/self/fd/*; do fd=\${fd##*/}; if [ "$fd" -gt ${keep} ]; then eval "exec $fd>&-"; fi; done`;
}
