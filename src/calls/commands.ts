/**
 * `svc.importCalls` (explorer, editor title, palette, or `{ files, itemsPerBatch?, maxBatchBytes? }`).
 * A thin registration: the flow is ImportManager's (manager.ts).
 */
import type * as vscode from 'vscode';
import type { Commands } from '../ui/commands';
import type { ImportManager } from './manager';

export function registerImportCommands({ commands, manager }: { commands: Commands; manager: ImportManager }): vscode.Disposable[] {
  return [manager, commands.register('svc.importCalls', (how, clicked?: unknown, selected?: unknown, options?: unknown) => manager.import(how, clicked, selected, options))];
}
