import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'test-results/',
      'allure-results/',
      'allure-report/',
      'reports/',
      'certification/',
      'playwright-report/',
      '.stryker-tmp/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Playwright reads a fixture's dependencies from its destructuring pattern; `{}` means "none".
      'no-empty-pattern': ['error', { allowObjectPatternsAsParameters: true }],
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read the configuration through runner/config/resolve.ts (RunConfig), never process.env.',
        },
      ],
    },
  },
  {
    // The one CommonJS file: the formats the validators compiled ahead of time require (schemas/validators.ts).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // Where process.env may be read. The configuration is read in one module; the other reads are imposed, each marked
  // where it is with `eslint-disable-next-line no-restricted-properties -- <why>`: Playwright's TEST_WORKER_INDEX
  // (playwright.config.ts), the hand-off of the run's configuration and broker to the workers (playwright.config.ts,
  // runner/global-setup.ts, runner/broker-client.ts), proxy-from-env, which reads nothing else (runner/config/network.ts),
  // and the environments given to child processes (scripts/, selftest/).
  {
    // The one owner of the configuration: .env (ENV_FILE) and the environment, read once into the run's configuration.
    files: ['runner/config/resolve.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // npm run sandbox's own small reader of its SANDBOX_* variables, outside any conformance run.
    files: ['sandbox/main.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // Example clients of a reseller: programs of their own, started by npm run certify-client with the environment it
    // gives them (the sandbox's URLs and credentials), which they read as any client reads its configuration.
    files: ['examples/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
