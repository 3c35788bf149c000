import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'data/**', 'src/schema.gql', '.dependency-cruiser.cjs'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-extraneous-class': 'off',
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
  {
    // The HTTP pipeline is one ordered file (README, "The HTTP pipeline"): nothing else adds to it.
    files: ['src/**/*.ts'],
    ignores: ['src/api/http-pipeline.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'CallExpression[callee.property.name=/^(addHook|addContentTypeParser|removeContentTypeParser|removeAllContentTypeParsers|setNotFoundHandler|setErrorHandler|decorateRequest|decorateReply)$/]',
          message: 'Fastify hooks, parsers and decorations are registered in src/api/http-pipeline.ts only, in the order a request meets them',
        },
        {
          selector: "CallExpression[callee.object.name='fastify'][callee.property.name=/^(route|get|head|post|put|patch|delete|options|all|register)$/]",
          message: 'Routes outside Nest controllers are registered in src/api/http-pipeline.ts only: export the handler and register it there',
        },
      ],
    },
  },
  {
    // Node 20 and Node 24 need different majors of better-sqlite3 (src/database/sqlite-driver.ts).
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    ignores: ['src/database/sqlite-driver.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: [{ name: 'better-sqlite3', message: 'Load the driver with loadSqliteDriver() from src/database/sqlite-driver.ts', allowTypeImports: true }] },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'bench/**/*.js'],
    rules: { 'no-console': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
