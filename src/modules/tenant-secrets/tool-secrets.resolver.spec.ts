import type { GatewayConfig } from '@app/config/gateway-config';
import type { ConfigVersionService } from '@app/database/config-version.service';
import { TenantSecretsCipher } from './tenant-secrets.cipher';
import type { TenantSecretsRepository } from './tenant-secrets.repository';
import { MAX_CACHED_SECRET_SCOPES, ToolSecretsResolver } from './tool-secrets.resolver';

const config = { toolSecrets: new Map<string, string>(), secretsKey: Buffer.alloc(32, 1), nodeEnv: 'test' };

describe('ToolSecretsResolver', () => {
  describe('scopeOf', () => {
    let loads: string[];
    let resolver: ToolSecretsResolver;

    beforeEach(() => {
      loads = [];
      const cipher = new TenantSecretsCipher(config as unknown as GatewayConfig);
      const repo = {
        findAllOfTenant: async (tenantId: string) => {
          loads.push(tenantId);
          return [{ name: 'TOKEN', valueEncrypted: cipher.encrypt(tenantId, 'TOKEN', `token of ${tenantId}`) }];
        },
      } as unknown as TenantSecretsRepository;
      const versions = { lastSeen: () => '1:1', read: async () => '1:1' } as unknown as ConfigVersionService;
      resolver = new ToolSecretsResolver(config, repo, cipher, versions);
    });

    it(`keeps the decrypted secrets of the ${MAX_CACHED_SECRET_SCOPES} tenants used last, not of every tenant ever`, async () => {
      for (let i = 0; i < MAX_CACHED_SECRET_SCOPES + 200; i++) await resolver.scopeOf(`tenant-${i}`);
      expect(resolver['tenants'].size).toBe(MAX_CACHED_SECRET_SCOPES);
    });

    it('reads again the secrets of a tenant let go, and keeps those in use in memory', async () => {
      await resolver.scopeOf('busy');
      for (let i = 0; i < MAX_CACHED_SECRET_SCOPES + 200; i++) {
        await resolver.scopeOf(`tenant-${i}`);
        if (i % 100 === 0) await resolver.scopeOf('busy');
      }
      expect((await resolver.scopeOf('busy')).get('TOKEN')).toBe('token of busy');
      expect((await resolver.scopeOf('tenant-0')).get('TOKEN')).toBe('token of tenant-0');
      expect(loads.filter((t) => t === 'busy')).toHaveLength(1);
      expect(loads.filter((t) => t === 'tenant-0')).toHaveLength(2);
    });
  });
});
