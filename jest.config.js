/**
 * One Jest run covers unit specs (next to the code) and the integration / e2e suites under test/.
 * The global setup starts a throwaway MariaDB when the machine has one (CI installs it), so the
 * database suites run on SQLite and on MariaDB. Two workers: these machines have two cores.
 */
/** @type {import('jest').Config} */
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/test/**/*.int-spec.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  moduleNameMapper: {
    '^@app/(.*)$': '<rootDir>/src/$1',
    '^@migrations/(.*)$': '<rootDir>/migrations/$1',
    '^@test/(.*)$': '<rootDir>/test/$1',
  },
  globalSetup: '<rootDir>/test/support/jest-global-setup.ts',
  globalTeardown: '<rootDir>/test/support/jest-global-teardown.ts',
  testTimeout: 30000,
  maxWorkers: 2,
};
