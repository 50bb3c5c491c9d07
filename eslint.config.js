import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
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
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Playwright reads a fixture's dependencies from its destructuring pattern; `{}` means "none".
      'no-empty-pattern': ['error', { allowObjectPatternsAsParameters: true }],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through runner/config only.' },
      ],
    },
  },
  {
    // The one CommonJS file: the formats the validators compiled ahead of time require (schemas/validators.ts).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: [
      'runner/**',
      'playwright.config.ts',
      'sandbox/**',
      'selftest/**',
      'scripts/**',
      'reporters/**',
      'examples/**',
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
);
