// Lint for src/, test/, bench/, web/src and scripts: typescript-eslint's type-aware rules (floating
// promises and misused promises above all: a dropped promise is a lost error in a server) and
// import-x's cycle rule, which keeps the import graph pointing down. Formatting is Prettier's job.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/generated/**', 'node_modules/**', 'web/dist/**', '.data/**', 'test-artifacts/**', '.pglite-template/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: ['tsconfig.json', 'web/tsconfig.json'], noWarnOnMultipleProjects: true })],
      'import-x/ignore': ['node_modules'],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-self-import': 'error',
      'no-console': 'off',
    },
  },
  {
    // A cast to never silences every type check of what it casts: map inputs with types the compiler checks.
    files: ['src/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'TSAsExpression > TSNeverKeyword', message: 'No `as never`: give the value a type the target accepts (map it field by field if need be).' },
        { selector: 'TSAsExpression > TSArrayType > TSNeverKeyword', message: 'No `as never[]`: give the value a type the target accepts.' },
      ],
    },
  },
  {
    // Tests and benches reach into loosely typed results (GraphQL payloads, fake-model bodies).
    files: ['test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', performance: 'readonly', setTimeout: 'readonly' } },
  },
);
