/**
 * `svc.importCalls` (explorer, editor title, palette, or `{ files, itemsPerBatch?, maxBatchBytes? }`).
 * A thin registration: the flow is ImportManager's (manager.ts).
 */
import type * as vscode from 'vscode';
import { registerCommand } from '../ui/commands';
import type { ImportManager } from './manager';

export function registerImportCommands(manager: ImportManager): vscode.Disposable[] {
  return [manager, registerCommand('svc.importCalls', (how, clicked?: unknown, selected?: unknown, options?: unknown) => manager.import(how, clicked, selected, options))];
}
