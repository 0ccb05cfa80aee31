/** True when a driver error is a unique-constraint violation (SQLite or MySQL/MariaDB). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; errno?: number; driverError?: { code?: string; errno?: number } } | null;
  const code = e?.driverError?.code ?? e?.code;
  const errno = e?.driverError?.errno ?? e?.errno;
  return (
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    code === 'ER_DUP_ENTRY' ||
    errno === 1062
  );
}

/** True when MySQL/MariaDB chose the statement's transaction as a deadlock victim (rolled back: it may run again). */
export function isDeadlock(err: unknown): boolean {
  const e = err as { errno?: number; driverError?: { errno?: number } } | null;
  return (e?.driverError?.errno ?? e?.errno) === 1213;
}
