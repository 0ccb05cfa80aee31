import { DomainError } from '../errors/domain-error';
import type { AuthContext } from './auth-context';
import { targetTenantOf } from './target-tenant';

const platform = { tenantId: null, role: 'admin' } as AuthContext;
const acme = { tenantId: 'acme', role: 'admin' } as AuthContext;

describe('targetTenantOf', () => {
  it('gives the platform key the tenant it names, platform-wide when none', () => {
    expect(targetTenantOf(platform, 'globex', 'tools')).toBe('globex');
    expect(targetTenantOf(platform, null, 'tools')).toBeNull();
    expect(targetTenantOf(platform, undefined, 'tools')).toBeNull();
  });

  it("keeps a tenant's key in its own tenant, saying why with the resource's name", () => {
    expect(targetTenantOf(acme, undefined, 'tools')).toBe('acme');
    expect(targetTenantOf(acme, 'acme', 'tools')).toBe('acme');
    const refusal = (requested: string | null) => {
      try {
        targetTenantOf(acme, requested, 'MCP services');
      } catch (err) {
        return err as DomainError;
      }
      throw new Error('not refused');
    };
    expect(refusal(null)).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringMatching(/^Platform-wide MCP services /),
    });
    expect(refusal('globex')).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining('bound to tenant acme'),
    });
  });
});
