import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';
import { GatewayConfigError, loadGatewayConfig } from './gateway-config';
import { GATEWAY_SETTINGS } from './gateway-config.definitions';
import { renderEnvExample } from './env-example';

describe('loadGatewayConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadGatewayConfig({});
    expect(config).toMatchObject({
      port: 3000,
      databaseUrl: 'sqlite:data/gateway.sqlite',
      toolDefaultTimeoutMs: 60000,
      toolMaxAttempts: 3,
      journalLeaseMs: 10000,
      outboundAllowHosts: [],
      mcp: { healthIntervalMs: 10000 },
      webSearch: { url: '' },
    });
  });

  it('names every bad variable and the fix, all at once', () => {
    let error: GatewayConfigError | undefined;
    try {
      loadGatewayConfig({ PORT: 'eighty', TOOL_MAX_ATTEMPTS: '0', DATABASE_URL: 'postgres://x', NODE_ENV: 'prod' });
    } catch (err) {
      error = err as GatewayConfigError;
    }
    expect(error).toBeInstanceOf(GatewayConfigError);
    expect(error!.problems).toHaveLength(4);
    expect(error!.message).toMatch(/PORT="eighty" must be a whole number from 0 to 65535/);
    expect(error!.message).toMatch(/TOOL_MAX_ATTEMPTS="0" must be a whole number from 1 to 10/);
    expect(error!.message).toMatch(/DATABASE_URL=\(hidden\) is not valid: use sqlite:<file> or mysql:\/\//);
    expect(error!.message).toMatch(/NODE_ENV="prod" must be one of development, production, test/);
  });

  it('refuses a WEB_SEARCH_URL that is no http(s) URL at start, not at every web_search call', () => {
    expect(() => loadGatewayConfig({ WEB_SEARCH_URL: 'search.example.com/api' })).toThrow(
      /WEB_SEARCH_URL="search.example.com\/api" is not valid: use an http\(s\) URL/,
    );
    expect(loadGatewayConfig({ WEB_SEARCH_URL: 'https://search.example.com/api?v=2' }).webSearch.url).toBe(
      'https://search.example.com/api?v=2',
    );
  });

  it('reads AUTH_FAILURES_PER_MINUTE (0, no limit, by default) and refuses a value that is no count', () => {
    expect(loadGatewayConfig({}).authFailuresPerMinute).toBe(0);
    expect(loadGatewayConfig({ AUTH_FAILURES_PER_MINUTE: '20' }).authFailuresPerMinute).toBe(20);
    expect(() => loadGatewayConfig({ AUTH_FAILURES_PER_MINUTE: 'ten' })).toThrow(
      /AUTH_FAILURES_PER_MINUTE="ten" must be a whole number from 0 to 1000000/,
    );
    expect(() => loadGatewayConfig({ AUTH_FAILURES_PER_MINUTE: '-1' })).toThrow(
      /AUTH_FAILURES_PER_MINUTE="-1" must be a whole number from 0 to 1000000/,
    );
  });

  it('reads TRUST_PROXY as Fastify would trust it, and refuses at start an entry Fastify could not', () => {
    expect(loadGatewayConfig({}).trustedProxies).toEqual([]);
    const accepted = ['10.0.0.0/8', '127.0.0.1', 'fd00::/8', '::1', '::ffff:10.0.0.0/104', 'loopback', 'uniquelocal'];
    expect(loadGatewayConfig({ TRUST_PROXY: accepted.join(', ') }).trustedProxies).toEqual(accepted);
    expect(() => Fastify({ trustProxy: accepted })).not.toThrow();
    const refused: Array<[string, RegExp]> = [
      ['proxy.example.com', /TRUST_PROXY entry "proxy.example.com" is not an IP address, a CIDR range or one of/],
      ['10.0.0.0/33', /TRUST_PROXY entry "10.0.0.0\/33" has prefix length "33": use a whole number from 0 to 32/],
      ['fd00::/129', /TRUST_PROXY entry "fd00::\/129" has prefix length "129": use a whole number from 0 to 128/],
      ['10.0.0.0/8x', /TRUST_PROXY entry "10.0.0.0\/8x" has prefix length "8x"/],
    ];
    for (const [entry, problem] of refused) {
      expect(() => loadGatewayConfig({ TRUST_PROXY: `10.0.0.1,${entry}` })).toThrow(problem);
      // What Fastify says of it instead, when the app is built: no setting named.
      expect(() => Fastify({ trustProxy: [entry] })).toThrow(/^invalid (IP address|range on address)/);
    }
    // Short IPv4 forms, which Fastify reads as some address, are refused as unclear.
    expect(() => loadGatewayConfig({ TRUST_PROXY: '127.1' })).toThrow(/TRUST_PROXY entry "127.1" is not an IP address/);
  });

  it('never prints a secret value in its errors', () => {
    expect(() => loadGatewayConfig({ ADMIN_API_KEY: 'short-secret' })).toThrow(/ADMIN_API_KEY=\(hidden\)/);
    expect(() => loadGatewayConfig({ ADMIN_API_KEY: 'short-secret' })).not.toThrow(/short-secret/);
  });

  it('refuses an invalid outbound host entry at start-up as a configuration problem, naming the entry', () => {
    expect(() => loadGatewayConfig({ OUTBOUND_ALLOW_HOSTS: '127.0.0.1:11434,10.0.0.0/33' })).toThrow(
      'OUTBOUND_ALLOW_HOSTS entry "10.0.0.0/33" has an invalid prefix length',
    );
    expect(() => loadGatewayConfig({ OUTBOUND_PLATFORM_ONLY_HOSTS: 'nacos:99999' })).toThrow(
      'OUTBOUND_PLATFORM_ONLY_HOSTS entry "nacos:99999" has a port outside 1-65535',
    );
    expect(loadGatewayConfig({ OUTBOUND_ALLOW_HOSTS: 'ollama:11434,[::1]:8080' }).outboundAllowHosts).toEqual([
      'ollama:11434',
      '[::1]:8080',
    ]);
  });

  it('parses lists and tool secrets', () => {
    const config = loadGatewayConfig({ OUTBOUND_ALLOW_HOSTS: ' 127.0.0.1, 10.0.0.0/8 ,', TOOL_SECRETS: 'A=x=y,B_2=z' });
    expect(config.outboundAllowHosts).toEqual(['127.0.0.1', '10.0.0.0/8']);
    expect([...config.toolSecrets]).toEqual([
      ['A', 'x=y'],
      ['B_2', 'z'],
    ]);
    expect(() => loadGatewayConfig({ TOOL_SECRETS: 'no-equals' })).toThrow(/TOOL_SECRETS must be NAME=value/);
  });

  it("parses each tenant's Nacos namespaces, and refuses a malformed list", () => {
    const config = loadGatewayConfig({ NACOS_TENANT_NAMESPACES: 'acme=acme-prod|acme-dev;globex=globex' });
    expect([...config.nacos.tenantNamespaces]).toEqual([
      ['acme', ['acme-prod', 'acme-dev']],
      ['globex', ['globex']],
    ]);
    expect(loadGatewayConfig({}).nacos.tenantNamespaces.size).toBe(0);
    expect(() => loadGatewayConfig({ NACOS_TENANT_NAMESPACES: 'acme' })).toThrow(
      /NACOS_TENANT_NAMESPACES="acme" is not valid: use tenant=namespace/,
    );
  });

  it('loads the demo tools by default, except in production unless asked for', () => {
    expect(loadGatewayConfig({}).demoToolsEnabled).toBe(true);
    expect(loadGatewayConfig({ NODE_ENV: 'production' }).demoToolsEnabled).toBe(false);
    expect(loadGatewayConfig({ NODE_ENV: 'production', DEMO_TOOLS_ENABLED: 'true' }).demoToolsEnabled).toBe(true);
  });

  it('refuses the test-only fault injection in production', () => {
    expect(() => loadGatewayConfig({ NODE_ENV: 'production', GATEWAY_FAULT_INJECTION: 'after-started' })).toThrow(
      /test-only/,
    );
  });
});

describe('.env.example', () => {
  it('documents every variable the gateway reads', () => {
    const example = readFileSync(join(__dirname, '../../.env.example'), 'utf8');
    const documented = new Set([...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));
    expect([...documented].sort()).toEqual(GATEWAY_SETTINGS.map((s) => s.env).sort());
  });

  it('is exactly what `npm run env:example` renders', () => {
    expect(readFileSync(join(__dirname, '../../.env.example'), 'utf8')).toBe(renderEnvExample());
  });
});

describe("README.md's Configuration table", () => {
  /** Its rows, `| \`VAR\` | default | meaning |`, between "## Configuration" and the next section. */
  function readmeRows(): Array<{ env: string; defaultCell: string }> {
    const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('\n## Configuration\n'));
    const table = section.slice(0, section.indexOf('\n## ', 1));
    return [...table.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| ([^|]+) \|/gm)].map((m) => ({
      env: m[1],
      defaultCell: m[2].trim(),
    }));
  }

  it('has one row for every variable the gateway reads, in the order of .env.example', () => {
    expect(readmeRows().map((r) => r.env)).toEqual(GATEWAY_SETTINGS.map((s) => s.env));
  });

  it("states each variable's real default: `value` first, (empty ...) for an empty one, words for none", () => {
    const stated = readmeRows().map(({ env, defaultCell }) => {
      const value = /^`([^`]*)`/.exec(defaultCell)?.[1] ?? (defaultCell.startsWith('(empty') ? '' : undefined);
      return { env, value };
    });
    expect(stated).toEqual(
      GATEWAY_SETTINGS.map((s) => ({ env: s.env, value: 'defaultValue' in s ? s.defaultValue : undefined })),
    );
  });
});
