// ESLint with typescript-eslint's typed rules (`npm run lint`, also run by `npm test`), and the
// project's import rules as lint rules; the plain-JS scripts get the untyped recommended rules.
// scripts/lint.js runs this and keeps the checks that are not about TypeScript (focused tests,
// reasons on eslint-disable comments, what webview code may import).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import svc from './scripts/eslint-rules.js';

const VSCODE_IN_API = { name: 'vscode', message: 'src/api runs in plain Node and could ship as a library: no vscode import.' };
const UNDICI_MESSAGE = 'Only src/api/http.ts talks HTTP (undici, loaded by src/api/undici.ts): use the shared client.';
const UNDICI = { name: 'undici', message: UNDICI_MESSAGE };
const UNDICI_MODULES = { group: ['undici/*'], message: UNDICI_MESSAGE };

export default tseslint.config(
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', 'test-results/**', 'dist-vsix/**'] },
  js.configs.recommended,
  {
    // The plain-CommonJS scripts (build, test runners, host setup): the untyped recommended rules.
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { 'no-unused-vars': ['error', { varsIgnorePattern: '^_', argsIgnorePattern: '^_' }] },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  ...tseslint.configs.recommendedTypeChecked.map((c) => ({ ...c, files: ['**/*.ts'] })),
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A notification resolves (undefined when dismissed) and never rejects: showing one without
      // waiting for its answer is safe. Everything else is awaited, or handed to background().
      '@typescript-eslint/no-floating-promises': ['error', {
        ignoreVoid: false,
        checkThenables: true,
        allowForKnownSafeCalls: [
          { from: 'package', package: 'vscode', name: ['showInformationMessage', 'showWarningMessage', 'showErrorMessage'] },
          // The same notifications through the managers' Prompts (src/ui/prompts.ts; its Messages in common/errors.ts).
          { from: 'file', path: 'src/ui/prompts.ts', name: ['showInformationMessage', 'showWarningMessage', 'showErrorMessage'] },
          { from: 'file', path: 'src/common/errors.ts', name: ['showWarningMessage', 'showErrorMessage'] },
        ],
      }],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': 'off', // tsc: noUnusedLocals / noUnusedParameters
      // Indexed access is `T`, not `T | undefined`, in this tsconfig; the `!` marks say where the code relies on it.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // An async function without an await is how an interface method returns a promise, and it
      // turns a throw into a rejection: that is wanted here, not a mistake.
      '@typescript-eslint/require-await': 'off',
      // The repo's plain-CommonJS scripts (*.js) have no types: a require with a cast names what is used.
      '@typescript-eslint/no-require-imports': ['error', { allow: ['\\.c?js$'] }],
      'no-restricted-syntax': ['error', { selector: "NewExpression[callee.name='Function']", message: 'no new Function' }, { selector: "CallExpression[callee.name='eval']", message: 'no eval' }],
    },
  },
  {
    // A record keyed by data (metric names, metadata keys, group keys, run ids) has a null
    // prototype or is a Map: a "__proto__" metric must not write onto Object.prototype.
    files: ['src/**/*.ts'],
    plugins: { svc },
    rules: { 'svc/null-prototype-records': 'error' },
  },
  {
    // One rule value per file wins, so each block below names every import its files may not use.
    files: ['src/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [UNDICI], patterns: [UNDICI_MODULES] }] },
  },
  {
    files: ['src/api/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [VSCODE_IN_API, UNDICI], patterns: [UNDICI_MODULES] }] },
  },
  {
    // The agents' tools run in VS Code and in the MCP server (plain Node, dist/mcp.js).
    files: ['src/agents/core/**/*.ts', 'src/agents/mcp/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'The agents\' core and the MCP server run in plain Node: no vscode import.' }, UNDICI], patterns: [UNDICI_MODULES] }] },
  },
  {
    // The file readers run in the MCP server and in plain Node tests too; their Problems-panel side is src/ui/.
    files: ['src/files/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'src/files reads files in plain Node (the MCP server uses it): no vscode import; the editor side is src/ui/.' }, UNDICI], patterns: [UNDICI_MODULES] }] },
  },
  {
    // undici's modules are required here (no-require-imports, switched off in the file with its reason).
    files: ['src/api/undici.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [VSCODE_IN_API] }] },
  },
  {
    // Tests read untyped JSON (fixtures, service bodies, Playwright's evaluate results) and poke at
    // it: the assertion after each access is the check, so the any-propagation rules would only
    // add casts. Promise rules stay on.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Playwright's evaluate callbacks run in the page, and this tsconfig has no DOM types.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
