import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeysService } from './api-keys.service';
import { ApiKeysController } from './api-keys.controller';
import { API_KEY_RESOLVER } from '@app/common/auth/auth-context';
import { ApiKeyAuthGuard } from '@app/common/auth/api-key-auth.guard';

/** API keys and the global guard that authenticates every request with them. */
@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity])],
  controllers: [ApiKeysController],
  providers: [
    ApiKeysService,
    { provide: API_KEY_RESOLVER, useExisting: ApiKeysService },
    { provide: APP_GUARD, useClass: ApiKeyAuthGuard },
  ],
  // For requests that outlive their guard (the events stream asks again while it is open).
  exports: [API_KEY_RESOLVER],
})
export class ApiKeysModule {}
