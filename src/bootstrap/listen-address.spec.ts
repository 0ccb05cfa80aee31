import { describeListenAddress } from './listen-address';

describe('describeListenAddress', () => {
  it('names a wildcard bind as such, with localhost as the URL to open here', () => {
    expect(describeListenAddress({ address: '0.0.0.0', family: 'IPv4', port: 3000 })).toEqual({
      url: 'http://0.0.0.0:3000',
      localUrl: 'http://localhost:3000',
      scope: 'every IPv4 interface',
    });
    expect(describeListenAddress({ address: '::', family: 'IPv6', port: 3000 })).toEqual({
      url: 'http://[::]:3000',
      localUrl: 'http://localhost:3000',
      scope: 'every interface',
    });
  });

  it('names one bound address as it is (IPv6 in brackets)', () => {
    expect(describeListenAddress({ address: '127.0.0.1', family: 'IPv4', port: 8080 })).toEqual({
      url: 'http://127.0.0.1:8080',
      localUrl: 'http://127.0.0.1:8080',
      scope: 'this address only',
    });
    expect(describeListenAddress({ address: '::1', family: 'IPv6', port: 8080 }).url).toBe('http://[::1]:8080');
  });

  it('names a pipe or a server that is not listening', () => {
    expect(describeListenAddress('/tmp/gw.sock').url).toBe('/tmp/gw.sock');
    expect(describeListenAddress(null).url).toBe('(not listening)');
  });
});
