import type { DataSource } from 'typeorm';
import { ConfigVersionService, MAX_REMEMBERED_TENANT_VERSIONS } from './config-version.service';
import type { HotSql } from './hot-sql';

describe('ConfigVersionService', () => {
  describe('read', () => {
    let queries: string[];
    let versions: ConfigVersionService;

    beforeEach(() => {
      queries = [];
      // SQLite as the gateway runs it: no other connection commits, so a tenant read before is answered from memory.
      const sql = {
        sqliteDataVersion: () => 1,
        all: async (_sql: string, [tenantId]: string[]) => (queries.push(tenantId), [{ cv_global: 1, cv_tenant: 2 }]),
      } as unknown as HotSql;
      versions = new ConfigVersionService({} as DataSource, sql);
    });

    it(`remembers the versions of the ${MAX_REMEMBERED_TENANT_VERSIONS} tenants read last, not of every tenant ever`, async () => {
      for (let i = 0; i < MAX_REMEMBERED_TENANT_VERSIONS + 500; i++) await versions.read(`tenant-${i}`);
      expect(versions['seen'].size).toBe(MAX_REMEMBERED_TENANT_VERSIONS);
      expect(versions['lastRead'].size).toBe(MAX_REMEMBERED_TENANT_VERSIONS);
    });

    it('reads a forgotten tenant from the database again, and a remembered one from memory', async () => {
      await versions.read('busy');
      for (let i = 0; i < MAX_REMEMBERED_TENANT_VERSIONS + 500; i++) {
        await versions.read(`tenant-${i}`);
        if (i % 1000 === 0) await versions.read('busy');
      }
      expect(versions.lastSeen('tenant-0')).toBeUndefined();
      await expect(versions.read('tenant-0')).resolves.toBe('1:2');
      await expect(versions.read('busy')).resolves.toBe('1:2');
      expect(versions.lastSeen('busy')).toBe('1:2');
      expect(queries.filter((t) => t === 'busy')).toHaveLength(1);
      expect(queries.filter((t) => t === 'tenant-0')).toHaveLength(2);
    });
  });
});
