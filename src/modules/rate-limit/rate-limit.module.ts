import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { ApiKeyRateLimitGuard } from './api-key-rate-limit.guard';
import { RateLimitBlocks } from './rate-limit-blocks';

const ONE_MINUTE_MS = 60_000;

/**
 * Nest's throttler as a global guard, limiting each API key to `perMinute` requests a minute on this instance
 * (RATE_LIMIT_PER_MINUTE; the counts live in this process, as the README's known limits say). Imported after
 * ApiKeysModule, so its guard runs after the key guard.
 */
@Module({})
export class RateLimitModule {
  static perKey(perMinute: number): DynamicModule {
    return {
      module: RateLimitModule,
      imports: [ThrottlerModule.forRoot([{ ttl: ONE_MINUTE_MS, limit: perMinute }])],
      providers: [RateLimitBlocks, { provide: APP_GUARD, useClass: ApiKeyRateLimitGuard }],
      exports: [RateLimitBlocks],
    };
  }
}
