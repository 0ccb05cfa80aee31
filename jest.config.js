/**
 * Three Jest projects; `npm test` runs them all, `--selectProjects` picks some:
 * - unit: specs next to the code (src/**\/*.spec.ts), no database server and no global setup: runs in seconds
 *   (`npm run test:unit`);
 * - integration (test/**\/*.int-spec.ts) and e2e (test/**\/*.e2e-spec.ts): real SQLite, MariaDB, HTTP servers and
 *   processes. Their global setup starts a throwaway MariaDB when the machine has one (CI installs it), so the
 *   database suites run on SQLite and on MariaDB; Jest runs that setup once even when both projects run.
 * Two workers: these machines have two cores.
 */
const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  moduleNameMapper: {
    '^@app/(.*)$': '<rootDir>/src/$1',
    '^@migrations/(.*)$': '<rootDir>/migrations/$1',
    '^@test/(.*)$': '<rootDir>/test/$1',
  },
};
const withDatabaseServer = {
  globalSetup: '<rootDir>/test/support/jest-global-setup.ts',
  globalTeardown: '<rootDir>/test/support/jest-global-teardown.ts',
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    { ...shared, ...withDatabaseServer, displayName: 'integration', testMatch: ['<rootDir>/test/**/*.int-spec.ts'] },
    { ...shared, ...withDatabaseServer, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
  // Per test and per hook. Most suites start a whole gateway in beforeAll (every migration on a fresh database);
  // with both workers and MariaDB busy on two cores that passed 30 s in CI runs (a SQLite start in one, MariaDB
  // starts in another). Nothing is timed by this limit: it only bounds how long a hung test takes to fail.
  testTimeout: 60_000,
  maxWorkers: 2,
  // A worker that ran many database and HTTP suites holds a 0.5-0.8 GB heap at the end, and Node takes
  // 0.4 s (idle machine) to well over 0.5 s (two busy cores) to tear it down after its 'exit' event. Jest's
  // default 500 ms grace then kills it and warns of a leak that is not there (no handle is left: checked per
  // suite with --detectOpenHandles). With 2,500 tests, 3 s was passed in two CI runs of three on one day. A real
  // leak (a timer, socket or child left running) never exits and is still reported, 10 s later.
  workerGracefulExitTimeout: 10_000,
  // Jest keeps every module registry a suite loaded: a worker's heap grows by about 25 MB a suite, past 2.8 GB
  // after half the suites (`npx jest --logHeapUsage`), toward Node's 4.3 GB limit. Near it, garbage collection runs
  // all the time: in one CI run a unit check of 180 ms took 13 s of CPU late in the run. Jest replaces a worker
  // whose heap is over this limit once it finishes a suite.
  workerIdleMemoryLimit: '1GB',
};
