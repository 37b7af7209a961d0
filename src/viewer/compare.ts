/**
 * "Compare with…": two trajectories as normalized transcripts in VS Code's diff editor. The
 * transcripts are snapshots served by a read-only content provider (scheme `svc-transcript`).
 */
import * as vscode from 'vscode';

export const TRANSCRIPT_SCHEME = 'svc-transcript';

export class TranscriptStore implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private next = 0;

  register(): vscode.Disposable {
    return vscode.workspace.registerTextDocumentContentProvider(TRANSCRIPT_SCHEME, this);
  }

  /** Keeps `text` and returns the URI that shows it (the name is what the diff editor's tab shows). */
  put(name: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: TRANSCRIPT_SCHEME, path: `/${name.replace(/[\\/]/g, '_')}.md`, query: String(++this.next) });
    this.texts.set(uri.toString(), text);
    // Old snapshots go once there are many: a diff tab that is still open keeps its document.
    if (this.texts.size > 64) this.texts.delete(this.texts.keys().next().value!);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '(this transcript is no longer available: compare again)';
  }
}
