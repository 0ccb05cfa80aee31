import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeysService } from './api-keys.service';
import { ApiKeysController } from './api-keys.controller';
import { API_KEY_RESOLVER, AUTH_FAILURE_LIMIT } from '@app/common/auth/auth-context';
import { ApiKeyAuthGuard } from '@app/common/auth/api-key-auth.guard';
import { MetricsModule } from '@app/modules/metrics/metrics.module';
import { AuthFailureLimiter } from './auth-failure.limiter';

/**
 * API keys, the global guard that authenticates every request with them, and the count of failed authentications
 * per client address (AUTH_FAILURES_PER_MINUTE).
 */
@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity]), MetricsModule],
  controllers: [ApiKeysController],
  providers: [
    ApiKeysService,
    { provide: API_KEY_RESOLVER, useExisting: ApiKeysService },
    { provide: AUTH_FAILURE_LIMIT, useClass: AuthFailureLimiter },
    { provide: APP_GUARD, useClass: ApiKeyAuthGuard },
  ],
  // For requests that outlive their guard (the events stream asks again while it is open), and for the early
  // authentication hook (bootstrap), which refuses requests with a body before the body is read.
  exports: [API_KEY_RESOLVER, AUTH_FAILURE_LIMIT],
})
export class ApiKeysModule {}
