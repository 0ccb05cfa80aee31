import { Injectable } from '@nestjs/common';
import type { AuthContext } from '@app/common/auth/auth-context';

/** The throttler's tracker of a request: its API key (the limit is per key, over every route). */
export function rateLimitTrackerOf(auth: AuthContext): string {
  return `key:${auth.keyId}`;
}

/**
 * The API keys the rate-limit guard refused, each until the moment its Retry-After named. Written only by the guard
 * (the one place that counts); read by the early rate-limit hook, which refuses such a key's next request with a body
 * before the body is read. An entry ends with its block; a key the guard never refused has none.
 */
@Injectable()
export class RateLimitBlocks {
  private readonly blockedUntil = new Map<string, number>();

  /** The guard refused `tracker` for `seconds` (its Retry-After). */
  block(tracker: string, seconds: number, now = Date.now()): void {
    this.blockedUntil.set(tracker, now + seconds * 1000);
  }

  /** Whole seconds `tracker` stays refused (its Retry-After), 0 when it is not. */
  secondsLeft(tracker: string, now = Date.now()): number {
    const until = this.blockedUntil.get(tracker);
    if (until === undefined) return 0;
    if (until > now) return Math.ceil((until - now) / 1000);
    this.blockedUntil.delete(tracker);
    return 0;
  }
}
