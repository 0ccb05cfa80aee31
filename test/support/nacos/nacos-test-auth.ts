import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** The one user an auth-enabled test server knows. */
export interface NacosTestCredentials {
  username: string;
  password: string;
}

/** Token TTL a real server reports by default (seconds). */
const TOKEN_TTL_SECONDS = 18_000;

/**
 * Identity check of an auth-enabled Nacos server, in the order the real auth plugin resolves it:
 * `Authorization: Bearer <token>` header, then the `accessToken` parameter, then `username` and `password`
 * parameters (the npm naming client uses only the last: it never calls the login endpoint).
 */
export class NacosTestAuth {
  private readonly tokens = new Set<string>();

  constructor(private readonly credentials: NacosTestCredentials) {}

  /** `POST /nacos/v1/auth/users/login`: a token for the right user and password, otherwise undefined. */
  login(
    params: URLSearchParams,
  ): { accessToken: string; tokenTtl: number; globalAdmin: boolean; username: string } | undefined {
    if (!this.matches(params.get('username'), params.get('password'))) return undefined;
    const accessToken = randomBytes(24).toString('base64url');
    this.tokens.add(accessToken);
    return { accessToken, tokenTtl: TOKEN_TTL_SECONDS, globalAdmin: true, username: this.credentials.username };
  }

  /** Whether a request carries a valid identity. */
  allows(params: URLSearchParams, headers: IncomingHttpHeaders): boolean {
    const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
    const token = bearer ?? params.get('accessToken') ?? undefined;
    if (token) return this.tokens.has(token);
    return this.matches(params.get('username'), params.get('password'));
  }

  private matches(username: string | null, password: string | null): boolean {
    return username === this.credentials.username && password === this.credentials.password;
  }
}
