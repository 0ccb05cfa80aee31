import { AiToolEntity } from '@app/modules/tool-registry/ai-tool.entity';
import { AgentEntity } from '@app/modules/agent-config/agent.entity';
import { AgentToolBindingEntity } from '@app/modules/agent-config/agent-tool-binding.entity';
import { TenantCapabilityEntity } from '@app/modules/agent-config/tenant-capability.entity';
import { ApiKeyEntity } from '@app/modules/api-keys/api-key.entity';
import { ConfigVersionEntity } from './config-version.entity';

/** Every entity of the gateway (the options builder registers exactly these). */
export const GATEWAY_ENTITIES = [AiToolEntity, AgentEntity, AgentToolBindingEntity, TenantCapabilityEntity, ApiKeyEntity, ConfigVersionEntity];
