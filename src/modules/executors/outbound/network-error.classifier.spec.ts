import { classifyNetworkError } from './network-error.classifier';

const socketError = (code: string, syscall: string) =>
  Object.assign(new Error(`${syscall} ${code}`), { code, syscall });

describe('classifyNetworkError', () => {
  it('reads an unreachable host while connecting as never sent (safe to retry)', () => {
    const err = classifyNetworkError(
      new TypeError('fetch failed', { cause: socketError('EHOSTUNREACH', 'connect') }),
      't',
    );
    expect(err).toMatchObject({ errorClass: 'CONNECTION_REFUSED', reachedRemote: false, transient: true });
  });

  it('reads an unreachable host or network on an open connection as maybe sent (never retried blindly)', () => {
    for (const code of ['EHOSTUNREACH', 'ENETUNREACH']) {
      const err = classifyNetworkError(socketError(code, 'read'), 't');
      expect(err).toMatchObject({ errorClass: 'CONNECTION_LOST', reachedRemote: true });
      expect(err!.message).toContain('the remote may have received the request');
    }
  });

  it('reads a refused connection as never sent, and a reset as maybe sent', () => {
    expect(classifyNetworkError(socketError('ECONNREFUSED', 'connect'), 't')).toMatchObject({ reachedRemote: false });
    expect(classifyNetworkError(socketError('ECONNRESET', 'read'), 't')).toMatchObject({ reachedRemote: true });
    expect(classifyNetworkError(new Error('no code'), 't')).toBeNull();
  });

  it('reads a failed certificate check as a TLS failure that was never sent and is not worth a retry', () => {
    const altName = Object.assign(new Error("Hostname/IP does not match certificate's altnames"), {
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
    for (const err of [altName, Object.assign(new Error('certificate has expired'), { code: 'CERT_HAS_EXPIRED' })]) {
      expect(classifyNetworkError(new TypeError('fetch failed', { cause: err }), 'POST https://x/y')).toMatchObject({
        errorClass: 'TLS_FAILED',
        transient: false,
        reachedRemote: false,
      });
    }
  });
});
