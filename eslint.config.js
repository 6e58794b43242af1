// Lint runs in `npm test`. `any` is banned outright: types come from schemas and ports.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    // The composition root and the process wiring take options objects, not long lists of
    // positional parameters (docs/architecture.md, The runtime).
    files: ['src/main.ts', 'src/composition/**/*.ts', 'src/runtime/**/*.ts', 'src/cli/**/*.ts'],
    rules: { 'max-params': ['error', 4] },
  },
  {
    files: ['**/*.js', '**/*.mjs', 'bin/haberci'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
);
