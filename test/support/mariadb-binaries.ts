import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Absolute paths of the MariaDB programs a throwaway server needs. */
export interface MariaDbBinaries {
  installDb: string;
  server: string;
  admin: string;
  client: string;
}

// Debian puts mariadbd in /usr/sbin, which a non-login PATH may lack.
const EXTRA_DIRS = ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin'];

function findExecutable(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...EXTRA_DIRS];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/**
 * Finds mariadb-install-db, mariadbd, mariadb-admin and mariadb in PATH, /usr/sbin or /usr/bin.
 * Returns undefined when any of them is missing (install `mariadb-server mariadb-client`).
 */
export function findMariaDbBinaries(): MariaDbBinaries | undefined {
  const installDb = findExecutable('mariadb-install-db');
  const server = findExecutable('mariadbd');
  const admin = findExecutable('mariadb-admin');
  const client = findExecutable('mariadb');
  if (!installDb || !server || !admin || !client) return undefined;
  return { installDb, server, admin, client };
}
