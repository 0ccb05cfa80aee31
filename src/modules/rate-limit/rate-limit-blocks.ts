import { Injectable } from '@nestjs/common';
import type { AuthContext } from '@app/common/auth/auth-context';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { DomainError } from '@app/common/errors/domain-error';

/** The throttler's tracker of a request: its API key (the limit is per key, over every route). */
export function rateLimitTrackerOf(auth: AuthContext): string {
  return `key:${auth.keyId}`;
}

/** The 429 of a key past RATE_LIMIT_PER_MINUTE (`limit` when known): which limit, how long to wait, what helps. */
export function rateLimited(seconds: number, limit?: number): DomainError {
  const setting = limit === undefined ? 'RATE_LIMIT_PER_MINUTE' : `RATE_LIMIT_PER_MINUTE (${limit})`;
  return new DomainError(
    CommonErrorCode.TOO_MANY_REQUESTS,
    `This API key sent more requests within a minute than ${setting} allows on this gateway instance; wait ${seconds} s (see the Retry-After header) and retry, and spread its requests out (the operator may raise RATE_LIMIT_PER_MINUTE).`,
  );
}

/**
 * How often refusing a key also forgets the blocks that are over: the hook forgets a block only when its key sends
 * another request with a body, and a deleted key, or one that only reads, never does. A block lasts at most the
 * throttler's minute, so the map holds at most the keys refused within about two minutes.
 */
const SWEEP_EVERY_MS = 60_000;

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
  private nextSweepAt = 0;

  /** The guard refused `tracker` with a Retry-After of `seconds` (whole seconds, rounded up). */
  block(tracker: string, seconds: number, now = Date.now()): void {
    if (now >= this.nextSweepAt) this.forgetOver(now);
    this.blocks.set(tracker, { refusedUntil: now + (seconds - 1) * 1000, retryAt: now + seconds * 1000 });
  }

  /** Keys held: refused now, or refused until lately. */
  get size(): number {
    return this.blocks.size;
  }

  /** The Retry-After, in whole seconds, of a `tracker` surely still refused; 0 when it may not be. */
  secondsLeft(tracker: string, now = Date.now()): number {
    const block = this.blocks.get(tracker);
    if (block === undefined) return 0;
    if (block.refusedUntil > now) return Math.ceil((block.retryAt - now) / 1000);
    this.blocks.delete(tracker);
    return 0;
  }

  private forgetOver(now: number): void {
    for (const [tracker, block] of this.blocks) if (block.refusedUntil <= now) this.blocks.delete(tracker);
    this.nextSweepAt = now + SWEEP_EVERY_MS;
  }
}
