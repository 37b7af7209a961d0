/**
 * The questions of Attach Feedback: which ref, which kind, the note, the emoji, the custom type.
 * Each returns undefined when the user cancels. Only a user's action gets here (FeedbackManager
 * never asks a scripted caller).
 */
import * as vscode from 'vscode';
import type { FeedbackCreateResponse } from '../api';
import { background } from '../common/background';
import type { Prompts } from '../ui/prompts';
import type { FeedbackKind } from './args';
import { COMMON_EMOJI, charCount, emojiProblem, feedbackTypeProblem, MAX_NOTE_CHARS, NOTE_TYPE, noteProblem, REACTION_TYPE } from './payload';
import { refAt, refProblem, refsInText, shortRef } from './refText';

/** globalState: the custom feedback type last entered. */
export const CUSTOM_TYPE_KEY = 'svc.feedback.customType';

/** Which of several refs (in an editor's selection) to attach feedback to. */
export async function pickRef(prompts: Prompts, refs: string[], project: string): Promise<string | undefined> {
  const pick = await prompts.showQuickPick(
    refs.map((ref) => ({ label: ref, description: refProblem(ref, project) ? 'other project' : undefined })),
    { title: 'svc: Attach feedback to which ref?' },
  );
  return pick?.label;
}

/** Which turn of a thread (both have ids). */
export async function pickTurn(prompts: Prompts, threadId: string, choices: { turn: 'first' | 'last'; id: string }[], refOf: (id: string) => string): Promise<string | undefined> {
  const pick = await prompts.showQuickPick(
    choices.map((c) => ({ label: c.turn === 'first' ? 'First turn' : 'Last turn', description: c.id, detail: refOf(c.id), id: c.id })),
    { title: `svc: Attach feedback to which turn of ${threadId}?` },
  );
  return pick ? refOf(pick.id) : undefined;
}

/** Tells the user the feedback was stored, with Copy Id. */
export function announceCreated(prompts: Prompts, res: FeedbackCreateResponse, creator: string | undefined): void {
  const by = creator ? ` by ${creator}` : '';
  background(
    prompts.showInformationMessage(`svc: feedback ${res.id} created at ${formatTime(res.created_at)}${by}.`, 'Copy Id').then(async (choice) => {
      if (choice === 'Copy Id') {
        await vscode.env.clipboard.writeText(res.id);
        prompts.setStatusBarMessage('svc: copied the feedback id', 3000);
      }
    }),
    'Copying the feedback id',
  );
}

/** The refs in the selection of the editor (of `uri` when given), else the ref under its cursor. */
export function refsInEditor(uri: vscode.Uri | undefined): string[] {
  const editor =
    (uri && vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString())) || vscode.window.activeTextEditor;
  if (!editor) return [];
  const selection = editor.selection;
  if (!selection.isEmpty) {
    const refs = refsInText(editor.document.getText(selection));
    if (refs.length) return refs;
  }
  const position = selection.active;
  const match = refAt(editor.document.lineAt(position.line).text, position.character);
  return match ? [match.ref] : [];
}

export async function askRef(prompts: Prompts, project: string): Promise<string | undefined> {
  const prefix = `svc:///${project}/`;
  let value = prefix;
  try {
    const clip = (await vscode.env.clipboard.readText()).trim();
    if (clip.length < 2048 && !refProblem(clip, project)) value = clip;
  } catch {
    // No clipboard: start from the project prefix.
  }
  const answer = await prompts.showInputBox({
    title: 'svc: Attach feedback to',
    prompt: `A ref in ${project}: …/call/<call id>, …/object/<name>:<digest> or …/op/<name>:<digest>`,
    placeHolder: `${prefix}call/<call id>`,
    value,
    valueSelection: value === prefix ? [value.length, value.length] : undefined,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === '' ? 'Enter a svc:/// ref.' : refProblem(v.trim(), project)),
  });
  return answer?.trim() || undefined;
}


export async function pickKind(prompts: Prompts, ref: string): Promise<FeedbackKind | undefined> {
  const items: (vscode.QuickPickItem & { value: FeedbackKind })[] = [
    { label: '$(comment) Note', description: NOTE_TYPE, detail: `A text note of up to ${MAX_NOTE_CHARS} characters`, value: 'note' },
    { label: '$(smiley) Reaction', description: REACTION_TYPE, detail: 'One emoji', value: 'reaction' },
    { label: '$(json) Custom…', description: 'any feedback type', detail: 'A JSON payload you write in an editor', value: 'custom' },
  ];
  const pick = await prompts.showQuickPick(items, { title: `svc: Feedback for ${shortRef(ref)}`, placeHolder: 'Kind of feedback' });
  return pick?.value;
}

export async function askNote(prompts: Prompts, ref: string): Promise<string | undefined> {
  return prompts.showInputBox({
    title: `svc: Note on ${shortRef(ref)}`,
    prompt: `1 to ${MAX_NOTE_CHARS} characters`,
    ignoreFocusOut: true,
    validateInput: (v) => {
      const problem = noteProblem(v);
      if (problem) return problem;
      return { message: `${charCount(v)} / ${MAX_NOTE_CHARS} characters`, severity: vscode.InputBoxValidationSeverity.Info };
    },
  });
}

export async function pickEmoji(prompts: Prompts, ref: string): Promise<string | undefined> {
  const other = '$(edit) Other emoji…';
  const items: vscode.QuickPickItem[] = [
    ...COMMON_EMOJI.map((e) => ({ label: e.emoji, description: e.label })),
    { label: '', kind: vscode.QuickPickItemKind.Separator },
    { label: other },
  ];
  const pick = await prompts.showQuickPick(items, { title: `svc: React to ${shortRef(ref)}`, placeHolder: 'Pick one emoji', matchOnDescription: true });
  if (!pick) return undefined;
  if (pick.label !== other) return pick.label;
  return prompts.showInputBox({
    title: 'svc: Reaction',
    prompt: 'Exactly one emoji (flags, skin tones and combined emoji count as one)',
    validateInput: (v) => emojiProblem(v),
  });
}

export async function askFeedbackType(prompts: Prompts, globalState: vscode.Memento): Promise<string | undefined> {
  const type = await prompts.showInputBox({
    title: 'svc: Feedback type',
    prompt: 'A free-form label for this kind of feedback',
    placeHolder: 'e.g. score, correction, label',
    value: globalState.get<string>(CUSTOM_TYPE_KEY) ?? '',
    ignoreFocusOut: true,
    validateInput: (v) => feedbackTypeProblem(v),
  });
  if (type !== undefined) await globalState.update(CUSTOM_TYPE_KEY, type);
  return type;
}

/** Closes an untitled document without the "save changes?" prompt: revert, then close. */
export async function closeWithoutSaving(doc: vscode.TextDocument): Promise<void> {
  if (doc.isClosed) return;
  try {
    await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: false });
    if (vscode.window.activeTextEditor?.document === doc) {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
  } catch {
    // Best effort: the document stays open.
  }
}

function formatTime(iso: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : new Date(t).toLocaleString();
}
