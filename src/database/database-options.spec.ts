import { redactDatabaseUrl } from './database-options';

describe('redactDatabaseUrl', () => {
  it.each([
    ['mysql://gw:TopSecretPw1@db.internal:3306/gateway', 'mysql://gw:***@db.internal:3306/gateway'],
    // The URL parser (and mysql2) take the user info up to the last `@` of the authority: all of it is the password.
    ['mysql://gw:Top@SecretPw1@db.internal:3306/gateway', 'mysql://gw:***@db.internal:3306/gateway'],
    ['mysql://gw:a@b@SecretPw1@db.internal/gateway?ssl=x@y', 'mysql://gw:***@db.internal/gateway?ssl=x@y'],
    ['mysql://gw@db.internal/gateway', 'mysql://gw@db.internal/gateway'],
    ['sqlite:data/gateway.db', 'sqlite:data/gateway.db'],
  ])('hides the password of %s', (url, redacted) => {
    expect(redactDatabaseUrl(url)).toBe(redacted);
    expect(redactDatabaseUrl(url)).not.toContain('SecretPw1');
  });
});
