import * as vscode from 'vscode';
import { escapeMarkdown } from '../common/format';
import type { Connection } from '../service/connection';
import { THREAD_SCHEME } from '../common/ids';
import { ATTACH_COMMAND } from './commands';
import { displayContent, kindLabel, type FeedbackRecord } from './record';
import { OPEN_IN_WEB_UI } from '../webUi/commands';
import { commandArgs, linkRefs, MAX_LINKS, projectMismatch, refAt, refParts } from './refText';

/** Where refs become links and get hovers: files, untitled documents and thread details. */
export const REF_DOCUMENTS: vscode.DocumentSelector = [{ scheme: 'file' }, { scheme: 'untitled' }, { scheme: THREAD_SCHEME }];


/** `command:svc.attachFeedback?[{"ref":…}]`, the target of ref links. */
export function attachFeedbackUri(ref: string): vscode.Uri {
  return vscode.Uri.parse(`command:${ATTACH_COMMAND}?${commandArgs([{ ref, via: 'link' }])}`);
}

/** Makes every well-formed `svc:///` ref a link that attaches feedback to it. */
export class RefLinkProvider implements vscode.DocumentLinkProvider {
  provideDocumentLinks(document: vscode.TextDocument, token: vscode.CancellationToken): vscode.DocumentLink[] {
    const links: vscode.DocumentLink[] = [];
    if (!document.getText().includes('svc:///')) return links;
    for (let line = 0; line < document.lineCount && links.length < MAX_LINKS; line++) {
      if (token.isCancellationRequested) break;
      for (const match of linkRefs(document.lineAt(line).text, MAX_LINKS - links.length)) {
        const link = new vscode.DocumentLink(new vscode.Range(line, match.start, line, match.end), attachFeedbackUri(match.ref));
        link.tooltip = `Attach feedback to this ${match.parsed.kind}`;
        links.push(link);
      }
    }
    return links;
  }
}

/**
 * Shows a ref's parts in an untrusted markdown block, and below it, in a second block trusted
 * for the one command only, a link that attaches feedback.
 */
export class RefHoverProvider implements vscode.HoverProvider {
  constructor(
    private readonly connection: Connection,
    private readonly record?: FeedbackRecord,
  ) {}

  provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const line = document.lineAt(position.line).text;
    const match = refAt(line, position.character);
    if (!match || position.character >= match.end) return undefined;

    const parts = new vscode.MarkdownString(undefined, false);
    parts.isTrusted = false;
    parts.supportHtml = false;
    parts.appendMarkdown(`**svc ref** (${escapeMarkdown(match.parsed.kind)})\n\n| | |\n|---|---|\n`);
    for (const [label, value] of refParts(match.parsed)) {
      parts.appendMarkdown(`| ${escapeMarkdown(label)} | ${escapeMarkdown(value)} |\n`);
    }
    const project = this.connection.config.project;
    const mismatch = project ? projectMismatch(match.parsed, project) : undefined;
    if (mismatch) parts.appendMarkdown(`\n${escapeMarkdown(`Not in the selected project ${project}.`)}\n`);

    // The user's own record: what this user attached from this workspace (the service has no read of feedback).
    const mine = this.record?.forRefs([match.ref]) ?? [];
    if (mine.length) {
      parts.appendMarkdown(`\n**Attached from this editor** (your own record in this workspace, not read from the service)\n\n`);
      for (const e of mine.slice(0, 10)) parts.appendMarkdown(`- ${escapeMarkdown(e.time)} · ${escapeMarkdown(kindLabel(e.kind))}: ${escapeMarkdown(displayContent(e.content))}\n`);
      if (mine.length > 10) parts.appendMarkdown(`- ${mine.length - 10} more\n`);
    }

    const action = new vscode.MarkdownString(undefined, true);
    action.isTrusted = { enabledCommands: [ATTACH_COMMAND, OPEN_IN_WEB_UI] };
    action.supportHtml = false;
    action.appendMarkdown(`[$(feedback) Attach feedback…](${attachFeedbackUri(match.ref).toString()} "Attach feedback to this ${match.parsed.kind}")`);
    action.appendMarkdown(` · [$(link-external) Open in Web UI](command:${OPEN_IN_WEB_UI}?${commandArgs([{ ref: match.ref, via: 'link' }])} "Open this ${match.parsed.kind} in the service's web UI (svc.webUiUrl)")`);

    return new vscode.Hover([parts, action], new vscode.Range(position.line, match.start, position.line, match.end));
  }
}
