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
