import { ToolCallError } from '../tool-executor';
import { ToolErrorClass } from '../tool-error-class';

/** Failures that happen before a request is written: the remote provably never saw it. */
const NOT_SENT: Record<string, { errorClass: string; transient: boolean; text: string }> = {
  ECONNREFUSED: { errorClass: ToolErrorClass.CONNECTION_REFUSED, transient: true, text: 'connection refused' },
  ENOTFOUND: { errorClass: ToolErrorClass.DNS_FAILED, transient: false, text: 'host not found' },
  EAI_AGAIN: { errorClass: ToolErrorClass.DNS_FAILED, transient: true, text: 'DNS temporarily unavailable' },
  UND_ERR_CONNECT_TIMEOUT: { errorClass: ToolErrorClass.CONNECT_TIMEOUT, transient: true, text: 'connect timed out' },
  EHOSTUNREACH: { errorClass: ToolErrorClass.CONNECTION_REFUSED, transient: true, text: 'host unreachable' },
  ENETUNREACH: { errorClass: ToolErrorClass.CONNECTION_REFUSED, transient: true, text: 'network unreachable' },
};

/**
 * Codes that mean "never sent" only when the socket failed to connect: Linux reports them on an established
 * connection too (a route lost after the request was written), where the remote may have acted on it.
 */
const NOT_SENT_ONLY_AT_CONNECT = new Set(['EHOSTUNREACH', 'ENETUNREACH']);

/** Failures after the request may have been written: the remote may have acted on it. */
const MAYBE_SENT: Record<string, string> = {
  EHOSTUNREACH: 'host unreachable on an open connection',
  ENETUNREACH: 'network unreachable on an open connection',
  ECONNRESET: 'connection reset by the remote',
  EPIPE: 'connection closed while sending',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed by the remote',
  UND_ERR_CLOSED: 'connection closed',
  UND_ERR_HEADERS_TIMEOUT: 'no response headers in time',
  UND_ERR_BODY_TIMEOUT: 'response body stalled',
};

/**
 * TLS handshake failures: the certificate check (and the version check of TLS spoken to a plain port) ends the
 * connection before the request is written. Retrying cannot help: the service's certificate or the URL must change.
 */
const TLS_HANDSHAKE_CODES: ReadonlySet<string> = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

/**
 * Maps a transport-level failure (Node socket errors, undici errors, `fetch failed` with a cause) to a
 * {@link ToolCallError}, or returns `null` when it is not one. A {@link ToolCallError} anywhere in the cause
 * chain (e.g. the guard refusing an address at connect time) is returned as it is.
 */
export function classifyNetworkError(err: unknown, target: string): ToolCallError | null {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ToolCallError) return e;
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    if (TLS_HANDSHAKE_CODES.has(code)) {
      const detail = (e as { message?: unknown }).message;
      return new ToolCallError(
        `${target}: the TLS handshake failed (${code}${typeof detail === 'string' ? `: ${detail}` : ''}); the request was not sent. ` +
          "The service must present a certificate a public CA signed for this host name, still valid; or, if the port speaks plain HTTP, the tool's endpoint must use http://.",
        ToolErrorClass.TLS_FAILED,
        { transient: false, reachedRemote: false, cause: err },
      );
    }
    const atConnect = (e as { syscall?: unknown }).syscall === 'connect';
    const notSent = NOT_SENT_ONLY_AT_CONNECT.has(code) && !atConnect ? undefined : NOT_SENT[code];
    if (notSent) {
      return new ToolCallError(`${target}: ${notSent.text} (${code}); the request was not sent.`, notSent.errorClass, {
        transient: notSent.transient,
        reachedRemote: false,
        cause: err,
      });
    }
    const maybeSent = MAYBE_SENT[code];
    if (maybeSent) {
      return new ToolCallError(
        `${target}: ${maybeSent} (${code}); the remote may have received the request.`,
        ToolErrorClass.CONNECTION_LOST,
        {
          transient: true,
          reachedRemote: true,
          cause: err,
        },
      );
    }
  }
  return null;
}

/** Whether an error is the abort of a request (undici `AbortError` / `UND_ERR_ABORTED`, DOM `AbortError`). */
export function isAbortError(err: unknown): boolean {
  const e = err as { name?: string; code?: string };
  return e?.name === 'AbortError' || e?.code === 'UND_ERR_ABORTED' || e?.code === 'ABORT_ERR';
}

/** The error an aborted attempt reports: the signal's own reason when it is a ToolCallError (the policy's timeout). */
export function abortedError(signal: AbortSignal, target: string, cause: unknown): ToolCallError {
  if (signal.reason instanceof ToolCallError) return signal.reason;
  return new ToolCallError(`${target}: the request was aborted before it completed.`, ToolErrorClass.TIMEOUT, {
    transient: true,
    reachedRemote: true,
    cause,
  });
}
