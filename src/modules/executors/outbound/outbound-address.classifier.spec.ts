import { blockedAddress } from './outbound-address.classifier';

/** Why `address` may not be reached, or null. */
const blockedAddressReason = (address: string): string | null => blockedAddress(address)?.reason ?? null;
import { OutboundAllowList } from './outbound-allow-list';

describe('blockedAddressReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.10', 'private'],
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:7f00:1::', 'loopback'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['64:ff9b:1::1', 'NAT64'],
    ['[::1]', 'loopback'],
  ])('refuses %s (%s)', (address, expected) => {
    expect(blockedAddressReason(address)).toContain(expected);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '172.15.255.255',
    '100.128.0.1',
    '169.253.255.255',
    '192.169.0.1',
    '11.0.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:82b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::',
  ])('lets the public address %s through', (address) => {
    expect(blockedAddressReason(address)).toBeNull();
  });

  it('treats a non-address as blocked rather than public', () => {
    expect(blockedAddressReason('example.com')).toBe('not an IP address');
  });
});

describe('OutboundAllowList', () => {
  const list = new OutboundAllowList([
    'internal.example',
    '*.svc.local',
    '127.0.0.1',
    '10.20.0.0/16',
    'fd00::/8',
    '[::1]',
    ' ',
    '::ffff:192.168.1.0/120',
  ]);

  it('matches host names exactly and case-insensitively, with or without the root dot', () => {
    expect(list.allowsHost('internal.example', 80)).toBe(true);
    expect(list.allowsHost('INTERNAL.Example.', 80)).toBe(true);
    expect(list.allowsHost('evil-internal.example', 80)).toBe(false);
    expect(list.allowsHost('internal.example.evil.com', 80)).toBe(false);
  });

  it('matches wildcard entries on subdomains only', () => {
    expect(list.allowsHost('api.svc.local', 80)).toBe(true);
    expect(list.allowsHost('a.b.svc.local', 80)).toBe(true);
    expect(list.allowsHost('svc.local', 80)).toBe(false);
    expect(list.allowsHost('xsvc.local', 80)).toBe(false);
  });

  it('matches single addresses, including their IPv4-mapped IPv6 form', () => {
    expect(list.allowsAddress('127.0.0.1', 80)).toBe(true);
    expect(list.allowsAddress('::ffff:127.0.0.1', 80)).toBe(true);
    expect(list.allowsAddress('127.0.0.2', 80)).toBe(false);
    expect(list.allowsAddress('::1', 80)).toBe(true);
  });

  it('matches CIDRs of both families', () => {
    expect(list.allowsAddress('10.20.255.1', 80)).toBe(true);
    expect(list.allowsAddress('10.21.0.1', 80)).toBe(false);
    expect(list.allowsAddress('fd12::5', 80)).toBe(true);
    expect(list.allowsAddress('fc00::5', 80)).toBe(false);
    expect(list.allowsAddress('192.168.1.77', 80)).toBe(true);
    expect(list.allowsAddress('192.168.2.1', 80)).toBe(false);
  });

  it('does not treat a host name entry as an address, nor an address entry as a host', () => {
    expect(list.allowsAddress('internal.example', 80)).toBe(false);
    expect(new OutboundAllowList(['10']).allowsAddress('0.0.0.10', 80)).toBe(false);
  });

  it('limits an entry with a port to that port, for names, wildcards, addresses and CIDRs of both families', () => {
    const ported = new OutboundAllowList([
      'ollama.internal:11434',
      'ollama.internal:8080',
      '*.svc.local:443',
      '127.0.0.1:11434',
      '10.0.0.0/8:5432',
      '[::1]:8080',
      '[fd00::/8]:443',
      'open.internal',
      'open.internal:9',
    ]);
    expect(ported.allowsHost('ollama.internal', 11434)).toBe(true);
    expect(ported.allowsHost('OLLAMA.internal.', 8080)).toBe(true);
    expect(ported.allowsHost('ollama.internal', 80)).toBe(false);
    expect(ported.allowsHost('api.svc.local', 443)).toBe(true);
    expect(ported.allowsHost('api.svc.local', 80)).toBe(false);
    expect(ported.allowsAddress('127.0.0.1', 11434)).toBe(true);
    expect(ported.allowsAddress('::ffff:127.0.0.1', 11434)).toBe(true);
    expect(ported.allowsAddress('127.0.0.1', 3000)).toBe(false);
    expect(ported.allowsAddress('10.9.8.7', 5432)).toBe(true);
    expect(ported.allowsAddress('10.9.8.7', 22)).toBe(false);
    expect(ported.allowsAddress('::1', 8080)).toBe(true);
    expect(ported.allowsAddress('::1', 8081)).toBe(false);
    expect(ported.allowsAddress('fd00::1', 443)).toBe(true);
    expect(ported.allowsAddress('fd00::1', 80)).toBe(false);
    // A name listed without a port covers every port, whatever else lists it with one.
    expect(ported.allowsHost('open.internal', 1234)).toBe(true);
  });

  it('reads an unbracketed IPv6 address as an address, never as host:port', () => {
    const v6 = new OutboundAllowList(['::1:80']);
    expect(v6.allowsAddress('::1:80', 443)).toBe(true);
    expect(v6.allowsAddress('::1', 80)).toBe(false);
  });

  it('refuses a bad port or a malformed entry at start-up, naming the entry and the form to use', () => {
    expect(() => new OutboundAllowList(['127.0.0.1:0'])).toThrow('"127.0.0.1:0" has a port outside 1-65535');
    expect(() => new OutboundAllowList(['host:70000'])).toThrow('outside 1-65535');
    expect(() => new OutboundAllowList(['host:http'])).toThrow('write a port as host:port');
    expect(() => new OutboundAllowList(['[::1:80'])).toThrow('[::1]:8080');
    expect(() => new OutboundAllowList(['x', 'y'], 'OUTBOUND_PLATFORM_ONLY_HOSTS')).not.toThrow();
    expect(() => new OutboundAllowList(['a:b:c'], 'OUTBOUND_PLATFORM_ONLY_HOSTS')).toThrow(
      'OUTBOUND_PLATFORM_ONLY_HOSTS entry "a:b:c"',
    );
  });

  it('refuses an invalid CIDR at start-up with the entry in the message', () => {
    expect(() => new OutboundAllowList(['10.0.0.0/33'])).toThrow('10.0.0.0/33');
    expect(() => new OutboundAllowList(['nonsense/8'])).toThrow('nonsense/8');
  });
});
