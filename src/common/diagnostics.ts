import * as vscode from 'vscode';

/** A problem found in a file, 1-based (as the readers report them). */
export interface FileProblem {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  message: string;
  severity: 'error' | 'warning';
  shownBy?: 'json' | 'schema';
}

/**
 * The problems of a file that the extension itself reports: where the document is open, VS Code
 * already shows JSON syntax errors of a `.json` file, and the schema's findings for a
 * `*.trajectories.json` file (package.json `jsonValidation`), so those are left to it.
 */
export function ownProblems<P extends FileProblem>(uri: vscode.Uri, problems: readonly P[]): P[] {
  const open = vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString());
  if (!open) return [...problems];
  const json = /\.json$/i.test(uri.path);
  const schema = /\.trajectories\.json$/i.test(uri.path);
  return problems.filter((p) => !((json && p.shownBy === 'json') || (schema && p.shownBy === 'schema')));
}

/** Converts a reader problem to a Diagnostic in the Problems panel. */
export function toDiagnostic(p: FileProblem): vscode.Diagnostic {
  const start = new vscode.Position(Math.max(0, p.line - 1), Math.max(0, p.column - 1));
  let end = new vscode.Position(Math.max(0, p.endLine - 1), Math.max(0, p.endColumn - 1));
  if (end.isBefore(start) || end.isEqual(start)) end = start.translate(0, 1);
  const d = new vscode.Diagnostic(
    new vscode.Range(start, end),
    p.message,
    p.severity === 'warning' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Error,
  );
  d.source = 'svc';
  return d;
}

/** Files a command may receive: explorer (uri, uris[]), editor title (uri), or scripted lists. */
export function filesFromArgs(clicked: unknown, selected: unknown): vscode.Uri[] {
  const list = Array.isArray(selected) && selected.every((u) => u instanceof vscode.Uri) && selected.length ? selected : clicked;
  const items = Array.isArray(list) ? list : list ? [list] : [];
  return items
    .map((x) => (x instanceof vscode.Uri ? x : typeof x === 'string' ? vscode.Uri.file(x) : undefined))
    .filter((u): u is vscode.Uri => !!u);
}

/**
 * Why files cannot be read, when one is not on this machine's disk (a virtual workspace, an
 * untitled buffer): upload and import stream files from disk with Node, so they take local files
 * only (package.json says so: `capabilities.virtualWorkspaces` is "limited").
 */
export function notOnDisk(files: readonly vscode.Uri[]): string | undefined {
  const other = files.find((u) => u.scheme !== 'file');
  return other ? `${other.toString(true)} is not a file on this machine's disk; only local files can be read (a virtual workspace's files cannot).` : undefined;
}

/** The options object of a scripted call: the last argument that is a plain object. */
export function optionsFromArgs<T extends object>(...args: unknown[]): Partial<T> {
  for (let i = args.length - 1; i >= 0; i--) {
    const arg = args[i];
    if (arg && typeof arg === 'object' && !Array.isArray(arg) && !(arg instanceof vscode.Uri)) return arg as Partial<T>;
  }
  return {};
}

