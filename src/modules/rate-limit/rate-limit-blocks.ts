import { Injectable } from '@nestjs/common';
import type { AuthContext } from '@app/common/auth/auth-context';

/** The throttler's tracker of a request: its API key (the limit is per key, over every route). */
export function rateLimitTrackerOf(auth: AuthContext): string {
  return `key:${auth.keyId}`;
}

/** A refusal: refused surely until `refusedUntil`; its Retry-After counts to `retryAt`, up to a second later. */
interface RateLimitBlock {
  refusedUntil: number;
  retryAt: number;
}

/**
 * The API keys the rate-limit guard refused, each while its block surely lasts. Written only by the guard (the one
 * place that counts); read by the early rate-limit hook, which refuses such a key's next request with a body before
 * the body is read. An entry ends with its block; a key the guard never refused has none.
 *
 * The guard's Retry-After is its block's time left rounded up to whole seconds: the block ends up to a second before
 * it. Refused here only until a second before, the hook never refuses what the guard would let through; in that last
 * second the guard decides (and reads the body).
 */
@Injectable()
export class RateLimitBlocks {
  private readonly blocks = new Map<string, RateLimitBlock>();

  /** The guard refused `tracker` with a Retry-After of `seconds` (whole seconds, rounded up). */
  block(tracker: string, seconds: number, now = Date.now()): void {
    this.blocks.set(tracker, { refusedUntil: now + (seconds - 1) * 1000, retryAt: now + seconds * 1000 });
  }

  /** The Retry-After, in whole seconds, of a `tracker` surely still refused; 0 when it may not be. */
  secondsLeft(tracker: string, now = Date.now()): number {
    const block = this.blocks.get(tracker);
    if (block === undefined) return 0;
    if (block.refusedUntil > now) return Math.ceil((block.retryAt - now) / 1000);
    this.blocks.delete(tracker);
    return 0;
  }
}
