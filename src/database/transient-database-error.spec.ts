import { QueryFailedError } from 'typeorm';
import { isTransientDatabaseError, isTransientDriverError } from './transient-database-error';

const withFields = (message: string, fields: Record<string, unknown>) => Object.assign(new Error(message), fields);

describe('isTransientDriverError', () => {
  it.each([
    [
      "TypeORM's QueryFailedError of a MariaDB deadlock victim",
      new QueryFailedError('UPDATE ...', [], withFields('Deadlock found', { code: 'ER_LOCK_DEADLOCK', errno: 1213 })),
    ],
    ['a better-sqlite3 SQLITE_BUSY', withFields('database is locked', { code: 'SQLITE_BUSY' })],
    [
      'a raw mysql2 lock wait timeout (HotSql)',
      withFields('Lock wait timeout exceeded', { code: 'ER_LOCK_WAIT_TIMEOUT', errno: 1205, sqlState: 'HY000' }),
    ],
    ['a mysql2 connection lost', withFields('Connection lost', { code: 'PROTOCOL_CONNECTION_LOST', fatal: true })],
    ['a mysql2 connection reset', withFields('read ECONNRESET', { code: 'ECONNRESET', fatal: true })],
  ])('is true for %s', (_title, err) => {
    expect(isTransientDriverError(err)).toBe(true);
  });

  it('is false for a socket error of an outbound call, which isTransientDatabaseError cannot tell apart', () => {
    const socket = withFields('read ECONNRESET', { code: 'ECONNRESET', syscall: 'read', errno: -104 });
    expect(isTransientDatabaseError(socket)).toBe(true);
    expect(isTransientDriverError(socket)).toBe(false);
  });

  it('is false for a driver error that a retry does not mend', () => {
    const duplicate = new QueryFailedError(
      'INSERT ...',
      [],
      withFields('Duplicate entry', { code: 'ER_DUP_ENTRY', errno: 1062, sqlState: '23000' }),
    );
    expect(isTransientDriverError(duplicate)).toBe(false);
    expect(isTransientDriverError(withFields('constraint failed', { code: 'SQLITE_CONSTRAINT_UNIQUE' }))).toBe(false);
  });
});
