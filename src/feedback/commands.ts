import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { registerCommand } from '../common/interaction';
import { callRef, CancelledError, parseRef, SvcError, type FeedbackCreateRequest, type FeedbackCreateResponse } from '../api';
import type { ErrorReporter } from '../common/errors';
import type { Logger } from '../common/logger';
import type { Connection } from '../service/connection';
import { isThreadNodeLike, parseAttachArgs, turnChoices, type AttachArgs, type FeedbackKind } from './args';
import {
  COMMON_EMOJI,
  charCount,
  emojiProblem,
  feedbackTypeProblem,
  MAX_NOTE_CHARS,
  NOTE_TYPE,
  noteProblem,
  parsePayloadText,
  payloadProblemFor,
  REACTION_TYPE,
  type JsonObject,
} from './payload';
import { projectMismatch, refAt, refProblem, refsInText, shortRef } from './refText';
import { canonicalJson, RetryIds } from './retryIds';
import { background } from '../common/background';
import { withAbortableProgress } from '../common/progress';

export const ATTACH_COMMAND = 'svc.attachFeedback';
/** globalState: the custom feedback type last entered. */
export const CUSTOM_TYPE_KEY = 'svc.feedback.customType';
export const PAYLOAD_TEMPLATE = '{\n  \n}';

type ThreadArg = { kind: 'thread'; project: string; row: { thread_id: string; first_turn_id?: string | null; last_turn_id?: string | null } };

/** A reason not to go on, with the fix to offer. Shown to users; thrown to scripted callers. */
class Refusal extends Error {
  constructor(
    message: string,
    readonly action?: { title: string; command: string; args?: unknown },
  ) {
    super(message);
  }
}

export interface FeedbackCommandDeps {
  connection: Connection;
  errors: ErrorReporter;
  log: Logger;
  globalState: vscode.Memento;
}

/**
 * `svc.attachFeedback`: from a thread item, a ref in an editor, a link, or the palette.
 *
 * Arguments (see args.ts): none, a `vscode.Uri` (editor menus), `{ ref?, kind?, note?, emoji?,
 * feedbackType?, payload?, creator?, id? }`, or a thread node plus that object (with `turn`) as
 * the second argument. Whatever is missing is asked for, except the creator: it comes from the
 * `svc.feedback.creator` setting unless given. When `kind` is given (scripted use) refusals are
 * thrown instead of shown. Returns the service's
 * response (`{ id, created_at, svc_user_id, payload }`), or undefined when cancelled.
 */
export class AttachFeedbackCommand {
  private readonly retryIds = new RetryIds(randomUUID);

  constructor(private readonly deps: FeedbackCommandDeps) {}

  register(): vscode.Disposable {
    return registerCommand(ATTACH_COMMAND, (_how, first?: unknown, second?: unknown) => this.run(first, second));
  }

  async run(first?: unknown, second?: unknown): Promise<FeedbackCreateResponse | undefined> {
    let node: ThreadArg | undefined;
    let uri: vscode.Uri | undefined;
    let raw: unknown;
    if (isThreadNodeLike(first)) {
      node = first;
      // A multi-selection in a view passes the selected nodes as the second argument.
      raw = Array.isArray(second) ? undefined : second;
    } else if (first instanceof vscode.Uri) {
      uri = first; // editor/context and editor/title menus pass the document's URI
    } else {
      raw = first;
    }
    const parsed = parseAttachArgs(raw);
    if (!parsed.ok) throw new Error(`svc.attachFeedback: ${parsed.reason}`);
    const args = parsed.args;
    const scripted = args.kind !== undefined;
    try {
      return await this.attach(args, node, uri, scripted);
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      this.deps.log.warn(`Attach feedback: ${e.message}`);
      if (scripted) throw new Error(e.message);
      background(this.showRefusal(e), 'Showing why no feedback was sent');
      return undefined;
    }
  }

  private async showRefusal(refusal: Refusal): Promise<void> {
    const action = refusal.action;
    const choice = await vscode.window.showWarningMessage(`svc: ${refusal.message}`, ...(action ? [action.title] : []));
    if (action && choice === action.title) await vscode.commands.executeCommand(action.command, ...(action.args !== undefined ? [action.args] : []));
  }

  private async attach(args: AttachArgs, node: ThreadArg | undefined, uri: vscode.Uri | undefined, scripted: boolean): Promise<FeedbackCreateResponse | undefined> {
    const { connection } = this.deps;
    const project = connection.config.project;
    if (!project) {
      throw new Refusal('No project is selected: set svc.project before attaching feedback.', { title: 'Select Project', command: 'svc.selectProject' });
    }
    if (!connection.client) {
      const why = connection.clientError ? `svc.baseUrl is not usable (${connection.clientError}).` : 'No svc service is configured (svc.baseUrl).';
      throw new Refusal(why, { title: 'Set Service URL', command: 'svc.setBaseUrl' });
    }

    // 1. The ref. It is checked against the project before anything else is asked or sent.
    const ref = await this.resolveRef(args, node, uri, project, scripted);
    if (ref === undefined) return undefined;
    const parsedRef = parseRef(ref);
    if (!parsedRef.ok) throw new Refusal(`"${ref}" is not a ref: it ${parsedRef.reason}.`);
    const mismatch = projectMismatch(parsedRef.ref, project);
    if (mismatch) {
      throw new Refusal(mismatch, { title: `Switch to ${parsedRef.ref.projectId}`, command: 'svc.selectProject', args: { projectId: parsedRef.ref.projectId } });
    }

    // 2. The kind and its content.
    const kind = args.kind ?? (await this.pickKind(ref));
    if (!kind) return undefined;
    let feedbackType: string;
    let payload: JsonObject | undefined;
    if (kind === 'note') {
      const note = args.note ?? (await this.askNote(ref));
      if (note === undefined) return undefined;
      feedbackType = NOTE_TYPE;
      payload = { note };
    } else if (kind === 'reaction') {
      const emoji = args.emoji ?? (await this.pickEmoji(ref));
      if (emoji === undefined) return undefined;
      feedbackType = REACTION_TYPE;
      payload = { emoji };
    } else {
      const type = args.feedbackType ?? (await this.askFeedbackType());
      if (type === undefined) return undefined;
      feedbackType = type;
      payload = args.payload;
      if (payload) {
        const problem = payloadProblemFor(type, payload);
        if (problem) throw new Refusal(problem);
      }
    }

    // 3. The creator: the argument when given (null for none), else the svc.feedback.creator setting. Never asked.
    const creator: string | null = args.creator !== undefined ? args.creator : connection.config.feedbackCreator || null;

    const base: FeedbackCreateRequest = {
      project_id: project,
      svc_ref: ref,
      feedback_type: feedbackType,
      payload: payload ?? {},
      ...(creator ? { creator } : {}),
    };
    if (payload) return this.send(base, args.id, scripted);
    return this.sendFromDocument(base, args.id);
  }

  // ---- the ref ----

  private async resolveRef(args: AttachArgs, node: ThreadArg | undefined, uri: vscode.Uri | undefined, project: string, scripted: boolean): Promise<string | undefined> {
    if (args.ref) return args.ref;
    if (node) return this.refOfThread(node, args);
    const inEditor = this.refsInEditor(uri);
    if (inEditor.length === 1 || (inEditor.length > 1 && scripted)) return inEditor[0];
    if (inEditor.length > 1) {
      const pick = await vscode.window.showQuickPick(
        inEditor.map((ref) => ({ label: ref, description: refProblem(ref, project) ? 'other project' : undefined })),
        { title: 'svc: Attach feedback to which ref?' },
      );
      return pick?.label;
    }
    return this.askRef(project);
  }

  private async refOfThread(node: ThreadArg, args: AttachArgs): Promise<string | undefined> {
    const row = node.row;
    if (args.turn) {
      const id = args.turn === 'first' ? row.first_turn_id : row.last_turn_id;
      if (!id) throw new Refusal(`Thread ${row.thread_id} has no ${args.turn} turn id.`);
      return callRef(node.project, id);
    }
    const choices = turnChoices(row);
    if (choices.length === 0) throw new Refusal(`Thread ${row.thread_id} has no turn ids to attach feedback to.`);
    if (choices.length === 1) return callRef(node.project, choices[0]!.id);
    const pick = await vscode.window.showQuickPick(
      choices.map((c) => ({
        label: c.turn === 'first' ? 'First turn' : 'Last turn',
        description: c.id,
        detail: callRef(node.project, c.id),
        id: c.id,
      })),
      { title: `svc: Attach feedback to which turn of ${row.thread_id}?` },
    );
    return pick ? callRef(node.project, pick.id) : undefined;
  }

  /** The refs in the selection of the editor (of `uri` when given), else the ref under its cursor. */
  private refsInEditor(uri: vscode.Uri | undefined): string[] {
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

  private async askRef(project: string): Promise<string | undefined> {
    const prefix = `svc:///${project}/`;
    let value = prefix;
    try {
      const clip = (await vscode.env.clipboard.readText()).trim();
      if (clip.length < 2048 && !refProblem(clip, project)) value = clip;
    } catch {
      // No clipboard: start from the project prefix.
    }
    const answer = await vscode.window.showInputBox({
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

  // ---- the content ----

  private async pickKind(ref: string): Promise<FeedbackKind | undefined> {
    const items: (vscode.QuickPickItem & { value: FeedbackKind })[] = [
      { label: '$(comment) Note', description: NOTE_TYPE, detail: `A text note of up to ${MAX_NOTE_CHARS} characters`, value: 'note' },
      { label: '$(smiley) Reaction', description: REACTION_TYPE, detail: 'One emoji', value: 'reaction' },
      { label: '$(json) Custom…', description: 'any feedback type', detail: 'A JSON payload you write in an editor', value: 'custom' },
    ];
    const pick = await vscode.window.showQuickPick(items, { title: `svc: Feedback for ${shortRef(ref)}`, placeHolder: 'Kind of feedback' });
    return pick?.value;
  }

  private async askNote(ref: string): Promise<string | undefined> {
    return vscode.window.showInputBox({
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

  private async pickEmoji(ref: string): Promise<string | undefined> {
    const other = '$(edit) Other emoji…';
    const items: vscode.QuickPickItem[] = [
      ...COMMON_EMOJI.map((e) => ({ label: e.emoji, description: e.label })),
      { label: '', kind: vscode.QuickPickItemKind.Separator },
      { label: other },
    ];
    const pick = await vscode.window.showQuickPick(items, { title: `svc: React to ${shortRef(ref)}`, placeHolder: 'Pick one emoji', matchOnDescription: true });
    if (!pick) return undefined;
    if (pick.label !== other) return pick.label;
    return vscode.window.showInputBox({
      title: 'svc: Reaction',
      prompt: 'Exactly one emoji (flags, skin tones and combined emoji count as one)',
      validateInput: (v) => emojiProblem(v),
    });
  }

  private async askFeedbackType(): Promise<string | undefined> {
    const type = await vscode.window.showInputBox({
      title: 'svc: Feedback type',
      prompt: 'A free-form label for this kind of feedback',
      placeHolder: 'e.g. score, correction, label',
      value: this.deps.globalState.get<string>(CUSTOM_TYPE_KEY) ?? '',
      ignoreFocusOut: true,
      validateInput: (v) => feedbackTypeProblem(v),
    });
    if (type !== undefined) await this.deps.globalState.update(CUSTOM_TYPE_KEY, type);
    return type;
  }

  // ---- sending ----

  /**
   * Sends one feedback row with a client id: the id of an earlier failed attempt at the same
   * feedback when there is one (see RetryIds), so a retry cannot create a second row.
   * Undefined when the user cancelled; failures are shown, then rethrown to scripted callers.
   */
  private async send(req: FeedbackCreateRequest, explicitId: string | undefined, scripted: boolean, rethrow = scripted): Promise<FeedbackCreateResponse | undefined> {
    const { connection, errors, log } = this.deps;
    const key = canonicalJson({ ...req, id: undefined });
    if (explicitId) this.retryIds.remember(key, explicitId);
    const id = explicitId ?? this.retryIds.idFor(key);
    const client = connection.client;
    if (!client) throw new Refusal('No svc service is configured (svc.baseUrl).', { title: 'Set Service URL', command: 'svc.setBaseUrl' });
    // Run by the user: the key's use may be asked about first. A scripted call is never asked.
    if (!scripted) await connection.prepare('trace');
    try {
      const res = await withAbortableProgress(
        { location: vscode.ProgressLocation.Notification, title: `svc: Attaching ${req.feedback_type} feedback to ${shortRef(req.svc_ref)}…` },
        (_progress, abort) => client.feedback.create({ ...req, id }, { signal: abort.signal }),
      );
      this.retryIds.succeeded(key);
      log.info(`Feedback ${res.id} (${req.feedback_type}) attached to ${req.svc_ref}`);
      const time = formatTime(res.created_at);
      const by = req.creator ? ` by ${req.creator}` : '';
      background(
        vscode.window.showInformationMessage(`svc: feedback ${res.id} created at ${time}${by}.`, 'Copy Id').then(async (choice) => {
          if (choice === 'Copy Id') {
            await vscode.env.clipboard.writeText(res.id);
            vscode.window.setStatusBarMessage('svc: copied the feedback id', 3000);
          }
        }),
        'Copying the feedback id',
      );
      return res;
    } catch (e) {
      if (e instanceof CancelledError) {
        log.info(`Attaching feedback to ${req.svc_ref} was cancelled (id ${id} is kept for a retry).`);
        return undefined;
      }
      // errors.show offers "Sign In" for a 401/403 itself: one prompt, not two. A failure that may
      // pass on a second try offers Retry, which resends with the same id (no second row).
      connection.reportFailure(e, { prompt: false });
      const retry = !rethrow && e instanceof SvcError && e.transient ? { retry: () => this.send(req, id, false) } : {};
      background(errors.show(e, 'Could not attach feedback', retry), 'Showing an error');
      if (rethrow) throw e;
      return undefined;
    }
  }

  /**
   * The custom payload, written in an untitled JSON document: a notification offers Send and
   * Cancel; a payload that does not parse, or a failed send, offers Send again (with the same id).
   * The document is closed without a save prompt when done.
   */
  private async sendFromDocument(base: FeedbackCreateRequest, explicitId: string | undefined): Promise<FeedbackCreateResponse | undefined> {
    const doc = await vscode.workspace.openTextDocument({ language: 'json', content: PAYLOAD_TEMPLATE });
    const editor = await vscode.window.showTextDocument(doc, { preview: false });
    editor.selection = new vscode.Selection(1, 2, 1, 2);
    let message = `svc: Edit the ${base.feedback_type} payload for ${shortRef(base.svc_ref)}, then click Send.`;
    let isError = false;
    try {
      for (;;) {
        const choice = await (isError
          ? vscode.window.showErrorMessage(message, 'Send', 'Cancel')
          : vscode.window.showInformationMessage(message, 'Send', 'Cancel'));
        if (choice !== 'Send') return undefined;
        if (doc.isClosed) {
          vscode.window.showWarningMessage('svc: The payload document was closed; no feedback was sent.');
          return undefined;
        }
        const parsed = parsePayloadText(doc.getText());
        const problem = parsed.ok ? payloadProblemFor(base.feedback_type, parsed.payload) : parsed.reason;
        if (problem || !parsed.ok) {
          message = `svc: ${problem} Fix the payload, then click Send.`;
          isError = true;
          continue;
        }
        let res: FeedbackCreateResponse | undefined;
        try {
          res = await this.send({ ...base, payload: parsed.payload }, explicitId, false, true);
        } catch {
          message = 'svc: Sending failed (see the error). Click Send to try again; the retry cannot create a duplicate.';
          isError = true;
          continue;
        }
        return res;
      }
    } finally {
      await closeWithoutSaving(doc);
    }
  }
}

/** Closes an untitled document without the "save changes?" prompt: revert, then close. */
async function closeWithoutSaving(doc: vscode.TextDocument): Promise<void> {
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
