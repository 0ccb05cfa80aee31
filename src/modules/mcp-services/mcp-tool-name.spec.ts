import { allocateMcpToolNames, defaultToolPrefix, mcpToolName } from './mcp-tool-name';

const VALID = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

describe('mcpToolName', () => {
  it('is prefix + remote name when that is already a valid name', () => {
    expect(mcpToolName('weather_', 'get-forecast')).toBe('weather_get-forecast');
    expect(mcpToolName('', 'echo')).toBe('echo');
  });

  it('replaces invalid characters and appends a hash of the remote name, so look-alikes stay apart', () => {
    const dotted = mcpToolName('svc_', 'files.read');
    const underscored = mcpToolName('svc_', 'files_read');
    expect(dotted).toMatch(/^svc_files_read_[0-9a-f]{8}$/);
    expect(underscored).toBe('svc_files_read');
    expect(mcpToolName('svc_', 'files.read')).toBe(dotted);
  });

  it('shortens long names deterministically to 64 characters, keeping distinct names distinct', () => {
    const long = `a${'x'.repeat(100)}`;
    const other = `b${'x'.repeat(100)}`;
    const name = mcpToolName('a_rather_long_prefix_', long);
    expect(name).toHaveLength(64);
    expect(name).toMatch(VALID);
    expect(mcpToolName('a_rather_long_prefix_', long)).toBe(name);
    expect(mcpToolName('a_rather_long_prefix_', other)).not.toBe(name);
  });

  it('always yields a valid name, even from names of unicode and spaces', () => {
    for (const remote of ['天气 查询', 'a b', '🙂', 'x'.repeat(64)]) expect(mcpToolName('p_', remote)).toMatch(VALID);
  });

  it('gives a name that would start with a digit or - a leading _ (and the hash), as Gemini requires', () => {
    expect(mcpToolName('', '1password')).toMatch(/^_1password_[0-9a-f]{8}$/);
    expect(mcpToolName('', '-dash')).toMatch(/^_-dash_[0-9a-f]{8}$/);
    expect(mcpToolName('9_', 'x')).toMatch(/^_9_x_[0-9a-f]{8}$/);
    expect(mcpToolName('', '_ok')).toBe('_ok');
  });
});

describe('allocateMcpToolNames', () => {
  it('keeps names distinct case-insensitively: the first in code-unit order keeps the plain name, the others get the hash', () => {
    const names = allocateMcpToolNames('', ['search', 'Search', 'SEARCH'], []);
    expect(names.get('SEARCH')).toBe('SEARCH');
    expect(names.get('Search')).toMatch(/^Search_[0-9a-f]{8}$/);
    expect(names.get('search')).toMatch(/^search_[0-9a-f]{8}$/);
    expect(new Set([...names.values()].map((n) => n.toLowerCase())).size).toBe(3);
  });

  it('does not depend on the order of the listing', () => {
    const listed = ['get.user', 'get_user', 'b', 'B', '1x', 'x'.repeat(80), `${'x'.repeat(80)}y`];
    const forward = allocateMcpToolNames('p_', listed, []);
    const backward = allocateMcpToolNames('p_', [...listed].reverse(), []);
    expect(Object.fromEntries(backward)).toEqual(Object.fromEntries(forward));
    for (const name of forward.values()) expect(name).toMatch(VALID);
  });

  it("avoids the names the service's rows hold (lower-cased keys), and a hashed name that is taken too", () => {
    const hashed = mcpToolName('', 'get.user');
    const names = allocateMcpToolNames('', ['get.user', 'Plain'], [hashed.toLowerCase(), 'plain']);
    expect(names.get('get.user')).toMatch(/^get_user_[0-9a-f]{8}$/);
    expect(names.get('get.user')).not.toBe(hashed);
    expect(names.get('Plain')).toMatch(/^Plain_[0-9a-f]{8}$/);
  });
});

describe('defaultToolPrefix', () => {
  it('is the service name with dots as underscores, then an underscore, at most 32 characters', () => {
    expect(defaultToolPrefix('weather')).toBe('weather_');
    expect(defaultToolPrefix('geo.maps')).toBe('geo_maps_');
    expect(defaultToolPrefix('s'.repeat(64))).toHaveLength(32);
  });
});
