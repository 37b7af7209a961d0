/** Import Calls from a JSONL file to the trace service, and which of Upload/Import a JSONL file's menus offer. */
import type * as vscode from 'vscode';
import { feature, type Feature, type FeatureDeps } from '../service/feature';
import { registerImportCommands } from './commands';
import { FileKindContext } from './fileKindContext';
import { ImportManager } from './manager';

export interface ImportsDeps extends FeatureDeps {
  /** After an import: the Threads view drops its loaded rows (a visible view reloads). */
  readonly afterImport: () => void;
  /** The notification's Show Thread: the threads an import wrote to. */
  readonly showThreads: (project: string, threadIds: string[]) => Promise<void>;
}

export function activateImports({ commands, errors, log, connection, prompts, contextKeys, afterImport, showThreads }: ImportsDeps): Feature<{ fileKinds: FileKindContext }> {
  const manager = new ImportManager(connection, errors, prompts, log, afterImport, showThreads);
  // Upload and Import in a JSONL file's menus: only the one its first line fits (when sniffed).
  const fileKinds = new FileKindContext(contextKeys);
  const disposables: vscode.Disposable[] = [fileKinds, ...registerImportCommands({ commands, manager })];
  return feature({ fileKinds }, disposables);
}
