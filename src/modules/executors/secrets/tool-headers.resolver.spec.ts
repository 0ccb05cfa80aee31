import type { ConfigVersionService } from '@app/database/config-version.service';
import type { GatewayConfig } from '@app/config/gateway-config';
import { TenantSecretsCipher } from '@app/modules/tenant-secrets/tenant-secrets.cipher';
import type { TenantSecretsRepository } from '@app/modules/tenant-secrets/tenant-secrets.repository';
import { ToolSecretsResolver } from '@app/modules/tenant-secrets/tool-secrets.resolver';
import { ToolCallError } from '../tool-executor';
import { ToolHeadersResolver } from './tool-headers.resolver';

const config = { toolSecrets: new Map<string, string>(), secretsKey: Buffer.alloc(32, 1), nodeEnv: 'test' };

function resolverWith(findAllOfTenant: () => Promise<unknown[]>): ToolHeadersResolver {
  const repo = { findAllOfTenant } as unknown as TenantSecretsRepository;
  const versions = { lastSeen: () => '1:1', read: async () => '1:1' } as unknown as ConfigVersionService;
  const cipher = new TenantSecretsCipher(config as unknown as GatewayConfig);
  return new ToolHeadersResolver(new ToolSecretsResolver(config, repo, cipher, versions));
}

describe('ToolHeadersResolver.scopeFor', () => {
  it("turns a failed read of the tenant's secrets into a transient error that says nothing was sent", async () => {
    const headers = resolverWith(async () => {
      throw new Error('SQLITE_BUSY: database is locked');
    });
    const err = await Promise.resolve(
      headers.scopeFor({ tenantId: 'acme', headers: { Authorization: 'Bearer ${secret:TOKEN}' } }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolCallError);
    expect(err).toMatchObject({ errorClass: 'SECRETS_UNAVAILABLE', transient: true, reachedRemote: false });
    expect((err as Error).message).toBe(
      "The secrets of tenant acme could not be read from the gateway's database; nothing was sent. Try again; if it persists, the platform operator should check the database.",
    );
  });

  it('needs no read at all for headers without a secret reference', () => {
    const headers = resolverWith(async () => {
      throw new Error('must not be called');
    });
    const scope = headers.scopeFor({ tenantId: 'acme', headers: { Accept: 'application/json' } });
    expect(scope).not.toBeInstanceOf(Promise);
  });
});
