import type * as vscode from 'vscode';

/** Base class that owns disposables registered through `_register` and disposes them once. */
export abstract class Disposable implements vscode.Disposable {
  private readonly disposables: { dispose(): unknown }[] = [];
  private disposed = false;

  protected _register<T extends { dispose(): unknown }>(d: T): T {
    if (this.disposed) d.dispose();
    else this.disposables.push(d);
    return d;
  }

  protected get isDisposed(): boolean {
    return this.disposed;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    while (this.disposables.length) {
      try {
        this.disposables.pop()!.dispose();
      } catch {
        // Keep disposing the rest.
      }
    }
  }
}
