import { findMariaDbBinaries } from './mariadb-binaries';
import jestGlobalSetup from './jest-global-setup';

// Never call the teardown here: a run in band shares globalThis with the real global setup.
jest.mock('./mariadb-binaries', () => ({ findMariaDbBinaries: jest.fn() }));

describe('jestGlobalSetup', () => {
  const saved = { url: process.env.TEST_MYSQL_URL, ci: process.env.CI };
  let warn: jest.SpyInstance;

  beforeEach(() => {
    delete process.env.TEST_MYSQL_URL;
    delete process.env.CI;
    jest.mocked(findMariaDbBinaries).mockReset().mockReturnValue(undefined);
    warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  });

  afterEach(() => {
    warn.mockRestore();
    for (const [name, value] of [
      ['TEST_MYSQL_URL', saved.url],
      ['CI', saved.ci],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('keeps a TEST_MYSQL_URL that is already set and starts nothing', async () => {
    process.env.TEST_MYSQL_URL = 'mysql://ci:secret@127.0.0.1:3306/';
    await jestGlobalSetup();
    expect(process.env.TEST_MYSQL_URL).toBe('mysql://ci:secret@127.0.0.1:3306/');
    expect(findMariaDbBinaries).not.toHaveBeenCalled();
  });

  it('fails in CI when there is neither a URL nor MariaDB', async () => {
    process.env.CI = 'true';
    await expect(jestGlobalSetup()).rejects.toThrow(/CI must run the MySQL dialect suites/);
  });

  it('outside CI warns once how to enable the MySQL suites and leaves TEST_MYSQL_URL unset', async () => {
    await jestGlobalSetup();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toContain('apt-get install -y --no-install-recommends mariadb-server mariadb-client');
    expect(process.env.TEST_MYSQL_URL).toBeUndefined();
  });
});
