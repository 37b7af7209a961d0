// ESLint with typescript-eslint's typed rules (`npm run lint`, also run by `npm test`), and the
// project's own rules as lint rules. scripts/lint.js keeps the checks that are about test files
// and shipped output rather than TypeScript (focused tests).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', 'test-results/**', 'dist-vsix/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: false, checkThenables: true }],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': 'off', // tsc: noUnusedLocals / noUnusedParameters
      // Indexed access is `T`, not `T | undefined`, in this tsconfig; the `!` marks say where the code relies on it.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      'no-restricted-syntax': ['error', { selector: "NewExpression[callee.name='Function']", message: 'no new Function' }, { selector: "CallExpression[callee.name='eval']", message: 'no eval' }],
    },
  },
  {
    files: ['src/api/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'src/api runs in plain Node and could ship as a library: no vscode import.' }] }],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/api/http.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'undici', message: 'Only src/api/http.ts talks HTTP: use the shared client.' }] }],
    },
  },
);
