import type { AddressInfo } from 'node:net';

/** The socket the HTTP server actually bound, as the start-up log names it. */
export interface ListenAddress {
  /** `http://<bound address>:<port>` (IPv6 in brackets): where the socket listens, e.g. `http://0.0.0.0:3000`. */
  url: string;
  /** A URL to open on this machine: `localhost` for a wildcard address (0.0.0.0 or ::), else `url`. */
  localUrl: string;
  /** `every IPv4 interface`, `every interface` or `this address only`. */
  scope: string;
}

const WILDCARD: Record<string, string> = { '0.0.0.0': 'every IPv4 interface', '::': 'every interface' };

/**
 * Reads the address the server is bound to (`server.address()`), never the one asked for: `HOST` may be a
 * name, and Nest's `getUrl()` names 127.0.0.1 for a server that listens on 0.0.0.0.
 */
export function describeListenAddress(address: AddressInfo | string | null): ListenAddress {
  if (address === null || typeof address === 'string') {
    const where = address ?? '(not listening)';
    return { url: where, localUrl: where, scope: 'a local socket' };
  }
  const host = address.address.includes(':') ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  const wildcard = WILDCARD[address.address];
  if (wildcard) return { url, localUrl: `http://localhost:${address.port}`, scope: wildcard };
  return { url, localUrl: url, scope: 'this address only' };
}
