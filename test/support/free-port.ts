import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A TCP port of 127.0.0.1 that was free a moment ago (the OS picks it). Another process may take it
 * before the caller binds it, so a caller that cannot bind should ask again.
 */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * Whether process `pid` holds a listening TCP socket on `port`: the LISTEN rows of /proc/net/tcp{,6} with that
 * port, matched by socket inode against the process's open descriptors. True where /proc is missing (not
 * Linux): the health answer alone must do there.
 */
export function listensOn(pid: number | undefined, port: number): boolean {
  if (pid === undefined) return false;
  const tables = ['/proc/net/tcp', '/proc/net/tcp6'].filter((table) => existsSync(table));
  if (tables.length === 0) return true;
  const inodes = new Set<string>();
  for (const table of tables) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      const LISTEN = '0A';
      if (fields.length > 9 && fields[3] === LISTEN && parseInt(fields[1].split(':')[1], 16) === port)
        inodes.add(fields[9]);
    }
  }
  if (inodes.size === 0) return false;
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false; // exited
  }
  return fds.some((fd) => {
    try {
      return inodes.has(/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? '');
    } catch {
      return false;
    }
  });
}
