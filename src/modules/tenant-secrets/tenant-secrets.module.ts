import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TenantSecretEntity } from './tenant-secret.entity';
import { TenantSecretsRepository } from './tenant-secrets.repository';
import { TenantSecretsCipher } from './tenant-secrets.cipher';
import { ToolSecretsResolver } from './tool-secrets.resolver';
import { TenantSecretsService } from './tenant-secrets.service';
import { TenantSecretsController } from './tenant-secrets.controller';

/**
 * Tenant secrets (encrypted with SECRETS_KEY) and the resolver that gives each tool or MCP service the secrets
 * of its own scope: platform-wide ones TOOL_SECRETS, a tenant's its own. Used by the executors and the MCP sync.
 */
@Module({
  imports: [TypeOrmModule.forFeature([TenantSecretEntity])],
  controllers: [TenantSecretsController],
  providers: [TenantSecretsRepository, TenantSecretsCipher, ToolSecretsResolver, TenantSecretsService],
  exports: [ToolSecretsResolver],
})
export class TenantSecretsModule {}
