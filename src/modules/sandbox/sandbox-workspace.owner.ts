import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * Hands the workspace to the sandbox user before a command runs, so the command can change files the gateway
 * wrote as root. coreutils `chown -R -P` walks without following symlinks (fts with O_NOFOLLOW, fchownat
 * with AT_SYMLINK_NOFOLLOW): a link the command planted cannot redirect the walk to host files.
 */
export async function giveWorkspaceTo(
  chownPath: string,
  workspaceDir: string,
  user: { uid: number; gid: number },
): Promise<void> {
  await execFileAsync(chownPath, ['-R', '-P', `${user.uid}:${user.gid}`, '--', workspaceDir], {
    env: {},
    timeout: 60_000,
  });
}
