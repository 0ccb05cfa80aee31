/**
 * What a database error is, for a log line: the driver's code (SQLITE_CONSTRAINT_TRIGGER, ER_DATA_TOO_LONG...) or the
 * error's name, never its message: a driver's message may quote the data it was given ("Incorrect string value",
 * "Duplicate entry"), and rows such as session events may hold what a tool or a user sent.
 */
export function databaseErrorCode(err: unknown): string {
  const e = err as { name?: string; code?: string; driverError?: { code?: string } } | null;
  return e?.driverError?.code ?? e?.code ?? e?.name ?? 'unknown error';
}
