import { defaultToolPrefix, mcpToolName } from './mcp-tool-name';

const VALID = /^[a-zA-Z0-9_-]{1,64}$/;

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
});

describe('defaultToolPrefix', () => {
  it('is the service name with dots as underscores, then an underscore, at most 32 characters', () => {
    expect(defaultToolPrefix('weather')).toBe('weather_');
    expect(defaultToolPrefix('geo.maps')).toBe('geo_maps_');
    expect(defaultToolPrefix('s'.repeat(64))).toHaveLength(32);
  });
});
