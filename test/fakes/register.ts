/**
 * Mocha `require` hook of the plain-Node run: `require('vscode')` resolves to test/fakes/vscode.ts,
 * so the classes that take their dependencies through constructors can be tested with fakes.
 * Nothing in src/api or src/files may import vscode (ESLint), so their tests are not affected.
 */
import Module from 'node:module';
import * as path from 'node:path';

const target = path.join(__dirname, 'vscode.ts');
type Resolve = (request: string, ...rest: unknown[]) => string;
const resolver = Module as unknown as { _resolveFilename: Resolve };
const original = resolver._resolveFilename;
resolver._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
  return original.call(this, request === 'vscode' ? target : request, ...rest);
};
