import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TenantSecretsModule } from '@app/modules/tenant-secrets/tenant-secrets.module';
import { ExecutorsModule } from '@app/modules/executors/executors.module';
import { ModelProviderEntity } from './model-provider.entity';
import { ModelProvidersRepository } from './model-providers.repository';
import { ModelProvidersService } from './model-providers.service';
import { ModelProvidersController } from './model-providers.controller';
import { ModelChatClient } from './model-chat.client';

/** OpenAI-compatible model providers (admin CRUD) and the client the agent loop asks them with. */
@Module({
  imports: [TypeOrmModule.forFeature([ModelProviderEntity]), TenantSecretsModule, ExecutorsModule],
  controllers: [ModelProvidersController],
  providers: [ModelProvidersRepository, ModelProvidersService, ModelChatClient],
  exports: [ModelProvidersService, ModelChatClient],
})
export class ModelProvidersModule {}
