import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A self-signed certificate (CN=localhost, valid for a day) and its key, for tests of TLS failures only: no client
 * trusts it, which is the point. Made by `openssl` when a test asks for it, so no private key is kept in the
 * repository (where secret scanners would rightly flag it).
 */
export function selfSignedTls(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gw-tls-'));
  try {
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    // An EC key: made in milliseconds, where RSA takes a noticeable share of a second.
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'].concat([
        '-subj',
        '/CN=localhost',
        '-keyout',
        key,
        '-out',
        cert,
      ]),
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
