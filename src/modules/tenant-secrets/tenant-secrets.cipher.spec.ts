import { TenantSecretsCipher } from './tenant-secrets.cipher';

const cipherWith = (hex: string | null) =>
  new TenantSecretsCipher({ secretsKey: hex === null ? null : Buffer.from(hex, 'hex'), nodeEnv: 'test' });

describe('TenantSecretsCipher', () => {
  const cipher = cipherWith('11'.repeat(32));

  it('round-trips a value, with a fresh IV each time and no plaintext in what is stored', () => {
    const a = cipher.encrypt('acme', 'GHTOKEN', 'ghp_value-1');
    const b = cipher.encrypt('acme', 'GHTOKEN', 'ghp_value-1');
    expect(a).not.toBe(b);
    expect(a).not.toContain('ghp_value-1');
    expect(cipher.decrypt('acme', 'GHTOKEN', a)).toBe('ghp_value-1');
  });

  it('binds the value to its tenant and name: copied elsewhere it does not decrypt', () => {
    const stored = cipher.encrypt('acme', 'GHTOKEN', 'v');
    expect(() => cipher.decrypt('globex', 'GHTOKEN', stored)).toThrow();
    expect(() => cipher.decrypt('acme', 'OTHER', stored)).toThrow();
  });

  it('refuses a value stored under another key, and anything without a key', () => {
    const stored = cipher.encrypt('acme', 'K', 'v');
    expect(() => cipherWith('22'.repeat(32)).decrypt('acme', 'K', stored)).toThrow();
    expect(cipherWith(null).configured).toBe(false);
    expect(() => cipherWith(null).encrypt('acme', 'K', 'v')).toThrow(/SECRETS_KEY/);
  });
});
