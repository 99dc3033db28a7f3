// ESLint (flat config): typescript-eslint's type-aware rules over the whole repository (decision R19).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '.azle/**',
      '**/.azle/**',
      '.build/**',
      '**/dist/**',
      'preview/**',
      '.data/**',
      '.bench/**',
      'screenshots/**',
      'docs/**',
      'scripts/fixtures/type-error/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.json', './tsconfig.azle.json', './apps/portal/tsconfig.json', './tsconfig.eslint-js.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    rules: {
      // node:test's describe/it return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // A destructuring whose names are partly reassigned stays one statement.
      'prefer-const': ['error', { destructuring: 'all' }],
      // Fastify plugins, hooks and handlers, and interface methods that return a promise, are async
      // without an await by design: a throw in them becomes a rejection the caller handles.
      '@typescript-eslint/require-await': 'off',
      // Callbacks are declared in method shorthand (component props, guards, options' now()) and Kysely's
      // expression builder is destructured by design; the one unbound logger method is called with .call.
      '@typescript-eslint/unbound-method': 'off',
      // Input rules refuse control characters on purpose: those regular expressions name them.
      'no-control-regex': 'off',
    },
  },
  {
    // Tests, benchmarks and the journey script read JSON answers (`any` by nature) and assert on them.
    files: ['**/test/**', '**/*.test.ts', 'bench/**', 'scripts/fixtures/**', 'scripts/journey.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      // `res.json() as T` states the shape a test asserts on; the rule would only have it spelled `res.json<T>()`.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Plain JavaScript has no annotations, so its values are `any` by nature; the promise rules still apply.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' }, rules: { '@typescript-eslint/no-require-imports': 'off' } },
);
