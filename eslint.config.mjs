// ESLint flat config: typescript-eslint with type information (projectService reads tsconfig.json, which
// covers src/, test/, bench/ and migrations/). The promise rules are errors: a floating promise is a lost
// error, and a promise passed where a plain callback is expected is never awaited. Where fire-and-forget is
// meant, write `void promise` with a comment that says why.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

const AMBIENT_CONTEXT = 'Promise hooks tax every request on Node 20: pass LogFields instead (log-context.ts).';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // `_name` marks a value left out on purpose (`const { secret: _secret, ...rest } = row`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // Noise here: `async` methods that implement a Promise-returning interface (repositories, executors,
      // Nest hooks) need no `await`, and dropping `async` would turn a rejection into a synchronous throw.
      '@typescript-eslint/require-await': 'off',
      // Abort helpers pass on `signal.reason` and a caught error as they are: an Error is asked of new reasons only.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      // On Node 20 one AsyncLocalStorage turns on promise hooks for every promise of the process (about 9% of
      // execute's CPU at 8 callers, README "Session 27's check"): log fields travel with the work (log-context.ts).
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'nestjs-pino/storage', message: 'No ambient request context: pass LogFields (log-context.ts).' },
            { name: 'async_hooks', importNames: ['AsyncLocalStorage', 'createHook'], message: AMBIENT_CONTEXT },
            { name: 'node:async_hooks', importNames: ['AsyncLocalStorage', 'createHook'], message: AMBIENT_CONTEXT },
          ],
        },
      ],
    },
  },
  {
    // Tests and benchmarks read untyped JSON (supertest's `body`, `JSON.parse`) and hand methods to `expect`:
    // the `any` rules would ask for a cast on every assertion. The promise rules stay on.
    files: ['test/**/*.ts', 'bench/**/*.ts', 'src/**/*.spec.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
