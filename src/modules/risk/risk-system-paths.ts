import { ShellWord, asWritten } from './risk-shell-word';

/**
 * Which paths belong to the system rather than to a project: writing, moving, deleting or opening up
 * their permissions breaks the host or hands it over. Paths are compared after normalisation
 * (`//`, `.`, `..`, `$HOME` → `~`), so `/tmp/../etc/passwd` is `/etc/passwd`.
 */

/** Trees the host runs on (configuration, boot, binaries, libraries, kernel interfaces, package databases, logs); /root is a home like any other. */
const SYSTEM_TREES = [
  '/etc',
  '/boot',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/usr',
  '/proc',
  '/sys',
  '/var/spool/cron',
  '/var/lib/dpkg',
  '/var/lib/apt',
  '/var/lib/rpm',
  '/var/log',
];
/** Device files that expose memory or ports (block devices are the `disk-wipe` rule's). */
const SYSTEM_DEVICES = ['/dev/mem', '/dev/kmem', '/dev/port'];
/** Parts of those trees that are meant for local installs. */
const LOCAL_TREES = ['/usr/local', '/usr/src', '/proc/self/fd'];
/** Login keys: replacing them locks the owner out or lets someone in. */
const SSH_DIR = /^(?:~|\/home\/[^/]+|\/Users\/[^/]+|\/root)\/\.ssh(?:\/|$)/;
/** Second-level trees every service keeps its state in: re-permissioning or moving them as a whole breaks the host. */
const SHARED_TREES = ['/var/lib', '/var/spool', '/var/cache', '/var/mail', '/usr/local'];
/** A whole home directory. */
const HOME_ROOT = /^(?:~|\/home\/[^/]+|\/Users\/[^/]+|\/root)(?:\/\*?)?$/;

/**
 * An absolute (or home-relative) path with `.`, `..` and repeated slashes resolved; a relative path is
 * resolved against `cwd` when the script's directory is known (`cd /etc; rm passwd`), else undefined.
 */
export function normalizePath(value: string, cwd?: string): string | undefined {
  let path = value.replace(/^\$\{?HOME\}?(?=\/|$)/, '~').replace(/^~[^/]*/, '~');
  if (cwd !== undefined && path && !path.startsWith('/') && !path.startsWith('~') && !path.startsWith('$'))
    path = `${cwd}/${path}`;
  const home = path.startsWith('~');
  if (!home && !path.startsWith('/')) return undefined;
  const parts: string[] = [];
  for (const part of path.slice(home ? 1 : 0).split('/')) {
    if (!part || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return (home ? '~' : '') + (parts.length || !home ? '/' : '') + parts.join('/');
}

function within(path: string, trees: readonly string[]): boolean {
  return trees.some((tree) => path === tree || path.startsWith(`${tree}/`));
}

/** The variables Windows names its own directory with (`%SystemRoot%`, `$env:windir`), and its program directories. */
const WINDOWS_DIR_VARIABLE = /^(?:%(?:systemroot|windir)%|\$\{?env:(?:systemroot|windir)\}?)(?=[\\/]|$)/i;
const WINDOWS_PROGRAMS_VARIABLE = /^(?:%programfiles(?:\(x86\))?%|\$\{?env:programfiles(?:\(x86\))?\}?)(?=[\\/]|$)/i;

/**
 * A Windows path as written (drive letter, `\` or `/`, any case; `%SystemRoot%` and `$env:windir` are the Windows
 * directory) in a tree the system runs on: a drive's root, the Windows directory but its Temp folder, the program
 * directories, a user's `.ssh`.
 */
export function isWindowsSystemPath(written: string): boolean {
  const expanded = written
    .replace(/^\\\\\?\\/, '')
    .replace(WINDOWS_DIR_VARIABLE, 'c:/windows')
    .replace(WINDOWS_PROGRAMS_VARIABLE, 'c:/program files');
  const [drive, ...rest] = expanded.toLowerCase().split(/[\\/]+/);
  if (!/^[a-z]:$/.test(drive) || (!rest.length && !/[\\/]/.test(expanded))) return false;
  const parts: string[] = [];
  for (const part of rest) {
    if (part === '..') parts.pop();
    else if (part && part !== '.') parts.push(part);
  }
  const [top, second, third] = parts;
  if (top === undefined || top === '*') return true;
  if (top === 'windows') return second !== 'temp';
  return top === 'program files' || top === 'program files (x86)' || (top === 'users' && third === '.ssh');
}

/** A file or tree of the system: `/`, `/etc/...`, `/usr/bin/...`, `~/.ssh/...` (`sshKeys` false leaves ~/.ssh out). */
export function isSystemPath(value: string, cwd?: string, sshKeys = true): boolean {
  if (/^[a-z]:[\\/]/i.test(value)) return isWindowsSystemPath(value);
  const path = normalizePath(value, cwd);
  if (path === undefined) return false;
  if (path === '/' || path === '/*') return true;
  if (within(path, LOCAL_TREES)) return false;
  return within(path, SYSTEM_TREES) || within(path, SYSTEM_DEVICES) || (sshKeys && SSH_DIR.test(path));
}

/**
 * A word naming a system file or tree, as a Unix shell (`/etc/hosts`) or Windows (`C:\Windows\...` as written: bash
 * took the backslashes of the unquoted word as escapes) reads it.
 */
export function isSystemWord(word: ShellWord, cwd?: string): boolean {
  return isSystemPath(word.value, cwd) || isWindowsSystemPath(asWritten(word));
}

/** The root, a top-level directory, a whole home, or a system tree: too broad to move or re-permission as a whole. */
export function isBroadPath(value: string, cwd?: string, sshKeys = true): boolean {
  const path = normalizePath(value, cwd);
  if (path === undefined) return false;
  if (/^\/[^/]*$/.test(path) || HOME_ROOT.test(path) || SHARED_TREES.includes(path.replace(/\/\*$/, ''))) return true;
  return isSystemPath(path, undefined, sshKeys);
}
