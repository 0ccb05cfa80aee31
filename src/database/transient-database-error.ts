/** MySQL/MariaDB error numbers of a database busy or going away, not of the statement: 1205 lock wait timeout, 1213
 * deadlock, 1040 too many connections, 1053 server shutdown, 2006/2013 server gone or connection lost. */
const TRANSIENT_MYSQL_ERRNOS = new Set([1205, 1213, 1040, 1053, 2006, 2013]);
/** Driver and socket codes of a connection that failed, not of the statement. */
const TRANSIENT_CODES = new Set(['PROTOCOL_CONNECTION_LOST', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);

/**
 * True when a driver error says the database was busy or unreachable (a lock, a deadlock, a lost connection, SQLite's
 * BUSY or LOCKED), so the same statement may well succeed later: it says nothing about the row it wrote.
 */
export function isTransientDatabaseError(err: unknown): boolean {
  const e = err as { code?: string; errno?: number; driverError?: { code?: string; errno?: number } } | null;
  const code = e?.driverError?.code ?? e?.code;
  const errno = e?.driverError?.errno ?? e?.errno;
  if (typeof errno === 'number' && TRANSIENT_MYSQL_ERRNOS.has(errno)) return true;
  if (typeof code !== 'string') return false;
  return TRANSIENT_CODES.has(code) || code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

/**
 * {@link isTransientDatabaseError} for an error that surely comes from the database driver: TypeORM's QueryFailedError
 * (it keeps the driver's error), a better-sqlite3 error (an SQLITE_ code), or a mysql2 one (it carries the server's
 * sqlState, or `fatal` for a failed connection). Code that also makes network calls (a built-in that searches the web)
 * tells by it a busy database from its own socket errors, whose codes (ECONNRESET...) a lost database connection shares.
 */
export function isTransientDriverError(err: unknown): boolean {
  const e = err as { driverError?: unknown; code?: unknown; sqlState?: unknown; fatal?: unknown } | null;
  const fromDriver =
    e?.driverError !== undefined ||
    (typeof e?.code === 'string' && e.code.startsWith('SQLITE_')) ||
    typeof e?.sqlState === 'string' ||
    typeof e?.fatal === 'boolean';
  return fromDriver && isTransientDatabaseError(err);
}
