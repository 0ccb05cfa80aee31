import { toolFixture } from '@test/support/tool-fixture';
import { builtinDatabaseBusy, builtinRefusal, isPlatformBuiltin } from './builtin-call';

describe('isPlatformBuiltin', () => {
  const builtin = toolFixture({ name: 'READ_FILE', source: 'BUILTIN', tenantId: null, serviceType: 'LOCAL' });
  it('matches a platform-wide BUILTIN row of one of the names (set or list)', () => {
    expect(isPlatformBuiltin(builtin, new Set(['READ_FILE']))).toBe(true);
    expect(isPlatformBuiltin(builtin, ['WRITE_FILE', 'READ_FILE'])).toBe(true);
    expect(isPlatformBuiltin(builtin, ['WRITE_FILE'])).toBe(false);
  });
  it("never matches a tenant's tool or another source that took a built-in's name", () => {
    expect(isPlatformBuiltin({ ...builtin, tenantId: 'acme' }, ['READ_FILE'])).toBe(false);
    expect(isPlatformBuiltin({ ...builtin, source: 'DB' }, ['READ_FILE'])).toBe(false);
  });
});

describe('builtinRefusal', () => {
  it('is a FAILED result that is never retried and never reached a remote', () => {
    const err = builtinRefusal('no workspace');
    expect(err).toMatchObject({ message: 'no workspace', errorClass: 'BUILTIN_REFUSED' });
    expect(err.transient).toBe(false);
    expect(err.reachedRemote).toBe(false);
  });
});

describe('builtinDatabaseBusy', () => {
  it('is worth another attempt, names the driver code and never the driver message', () => {
    const driverError = Object.assign(new Error("Deadlock found; row ('secret-value')"), {
      code: 'ER_LOCK_DEADLOCK',
      errno: 1213,
    });
    const err = builtinDatabaseBusy(
      { name: 'SUB_AGENT_CALL', sideEffect: 'IDEMPOTENT' },
      { driverError, message: driverError.message },
    );
    expect(err).toMatchObject({ errorClass: 'DATABASE_UNAVAILABLE', transient: true, reachedRemote: true });
    expect(err.message).toContain('SUB_AGENT_CALL');
    expect(err.message).toContain('ER_LOCK_DEADLOCK');
    expect(err.message).not.toContain('secret-value');
    expect(err.message).toContain('make the call again');
  });

  it('tells the model to check a SIDE_EFFECT or HIGH_RISK built-in before calling it again: it may have taken effect', () => {
    for (const sideEffect of ['SIDE_EFFECT', 'HIGH_RISK'] as const) {
      const err = builtinDatabaseBusy({ name: 'EDIT_FILE', sideEffect }, { code: 'SQLITE_BUSY' });
      expect(err.message).toBe(
        "EDIT_FILE could not use the gateway's database, busy or unreachable (SQLITE_BUSY); it may have taken effect: check before making the call again",
      );
    }
  });
});
