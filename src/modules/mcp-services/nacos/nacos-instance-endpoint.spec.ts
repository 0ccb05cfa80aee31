import { NacosMcpEndpointError, mcpEndpointOf, pickWeighted } from './nacos-instance-endpoint';

const defaults = { path: '/mcp', transport: 'streamable-http' as const };

function instance(metadata: Record<string, string> = {}, ip = '10.0.0.7', port = 8080) {
  return { ip, port, metadata };
}

describe('mcpEndpointOf', () => {
  it('builds http://ip:port/<default path> with the default transport when the metadata says nothing', () => {
    expect(mcpEndpointOf(instance(), defaults)).toEqual({
      url: 'http://10.0.0.7:8080/mcp',
      transport: 'streamable-http',
    });
  });

  it('takes mcp.path and mcp.transport from the metadata', () => {
    const endpoint = mcpEndpointOf(instance({ 'mcp.path': '/api/sse', 'mcp.transport': 'sse' }), defaults);
    expect(endpoint).toEqual({ url: 'http://10.0.0.7:8080/api/sse', transport: 'sse' });
  });

  it('adds the leading slash a path without one lacks', () => {
    expect(mcpEndpointOf(instance({ 'mcp.path': 'tools/mcp' }), defaults).url).toBe('http://10.0.0.7:8080/tools/mcp');
  });

  it('uses https when secure=true', () => {
    expect(mcpEndpointOf(instance({ secure: 'true' }), defaults).url).toBe('https://10.0.0.7:8080/mcp');
    expect(mcpEndpointOf(instance({ secure: 'false' }), defaults).url).toBe('http://10.0.0.7:8080/mcp');
  });

  it('lets a full mcp.url win over ip, port, path and secure', () => {
    const endpoint = mcpEndpointOf(
      instance({ 'mcp.url': 'https://mcp.example.test:9443/v1/mcp', 'mcp.path': '/ignored', secure: 'false' }),
      defaults,
    );
    expect(endpoint).toEqual({ url: 'https://mcp.example.test:9443/v1/mcp', transport: 'streamable-http' });
  });

  it('brackets an IPv6 address', () => {
    expect(mcpEndpointOf(instance({}, 'fd00::5', 7000), defaults).url).toBe('http://[fd00::5]:7000/mcp');
  });

  it('accepts the Nacos MCP registry spellings of the transports, in any case', () => {
    expect(mcpEndpointOf(instance({ 'mcp.transport': 'MCP-SSE' }), defaults).transport).toBe('sse');
    expect(
      mcpEndpointOf(instance({ 'mcp.transport': 'mcp-streamable' }), { ...defaults, transport: 'sse' }).transport,
    ).toBe('streamable-http');
  });

  it('rejects a transport it cannot open instead of guessing', () => {
    expect(() => mcpEndpointOf(instance({ 'mcp.transport': 'stdio' }), defaults)).toThrow(NacosMcpEndpointError);
    expect(() => mcpEndpointOf(instance({ 'mcp.transport': 'stdio' }), defaults)).toThrow(/mcp\.transport="stdio"/);
  });

  it('rejects an MCP URL that carries a credential, without quoting it (calls and syncs quote their URL)', () => {
    const metadatas: Array<Record<string, string>> = [
      { 'mcp.url': 'https://svc:hunter2@mcp.example.test/mcp' },
      { 'mcp.url': 'https://mcp.example.test/mcp?api_key=hunter2' },
      { 'mcp.path': '/mcp?token=hunter2' },
    ];
    for (const metadata of metadatas) {
      let thrown: unknown;
      try {
        mcpEndpointOf(instance(metadata), defaults);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(NacosMcpEndpointError);
      expect((thrown as Error).message).toMatch(/^Instance 10\.0\.0\.7:8080 gives an MCP URL .* must not carry /);
      expect((thrown as Error).message).toContain("MCP service's headers as ${secret:NAME}");
      expect((thrown as Error).message).not.toContain('hunter2');
    }
  });

  it('rejects an mcp.url that does not parse or is not http(s)', () => {
    expect(() => mcpEndpointOf(instance({ 'mcp.url': 'not a url' }), defaults)).toThrow(NacosMcpEndpointError);
    expect(() => mcpEndpointOf(instance({ 'mcp.url': 'file:///etc/passwd' }), defaults)).toThrow(/only http and https/);
  });
});

describe('pickWeighted', () => {
  const a = { id: 'a', weight: 1, healthy: true, enabled: true };
  const b = { id: 'b', weight: 3, healthy: true, enabled: true };

  it('splits the random range in proportion to the weights', () => {
    // total 4: [0, 1) is a, [1, 4) is b
    expect(pickWeighted([a, b], () => 0)).toBe(a);
    expect(pickWeighted([a, b], () => 0.2499)).toBe(a);
    expect(pickWeighted([a, b], () => 0.25)).toBe(b);
    expect(pickWeighted([a, b], () => 0.9999)).toBe(b);
  });

  it('never picks an instance of weight 0', () => {
    const drained = { id: 'z', weight: 0, healthy: true, enabled: true };
    for (const r of [0, 0.5, 0.999999]) expect(pickWeighted([drained, a], () => r)).toBe(a);
  });

  it('skips unhealthy and disabled instances', () => {
    const sick = { ...b, id: 'sick', healthy: false };
    const off = { ...b, id: 'off', enabled: false };
    expect(pickWeighted([sick, off, a], () => 0.99)).toBe(a);
  });

  it('returns undefined when nothing qualifies', () => {
    expect(pickWeighted([], () => 0.5)).toBeUndefined();
    expect(pickWeighted([{ ...a, weight: 0 }], () => 0.5)).toBeUndefined();
  });

  it('keeps the last eligible instance when random() returns exactly 1', () => {
    expect(pickWeighted([a, b], () => 1)).toBe(b);
  });

  it('picks by weight over many draws', () => {
    let seed = 42;
    const lcg = () => (seed = (seed * 1_664_525 + 1_013_904_223) % 2 ** 32) / 2 ** 32;
    let bs = 0;
    for (let n = 0; n < 4000; n++) if (pickWeighted([a, b], lcg) === b) bs++;
    expect(bs / 4000).toBeGreaterThan(0.7);
    expect(bs / 4000).toBeLessThan(0.8);
  });
});
