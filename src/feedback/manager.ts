/**
 * The flow of Attach Feedback: which ref (from a thread, an editor, a link or a question), the
 * kind and its content, then one request with a client id that makes a retry safe. Questions are
 * in questions.ts; the command registration is commands.ts. Refusals (no project, a ref of
 * another project, a bad payload) are InputErrors with the fix to offer: the presenter shows them
 * to a user, a scripted caller gets them as its rejection.
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { callRef, CancelledError, InputError, parseRef, SvcError, type FeedbackCreateRequest, type FeedbackCreateResponse } from '../api';
import { background } from '../common/background';
import type { ErrorPresenter } from '../common/errors';
import { withAbortableProgress, type Prompts } from '../ui/prompts';
import type { Logger } from '../common/logger';
import type { Connection } from '../service/connection';
import { isThreadNode, parseAttachArgs, turnChoices, type AttachArgs, type ThreadArg } from './args';
import { NOTE_TYPE, parsePayloadText, payloadProblemFor, REACTION_TYPE, type JsonObject } from './payload';
import { announceCreated, askFeedbackType, askNote, askRef, closeWithoutSaving, pickEmoji, pickKind, pickRef, pickTurn, refsInEditor } from './questions';
import { projectMismatch, shortRef } from './refText';
import { canonicalJson, RetryIds } from './retryIds';
import { payloadContent, type FeedbackRecord } from './record';
import { dict } from '../api/dict';

export const PAYLOAD_TEMPLATE = '{\n  \n}';

export interface FeedbackDeps {
  connection: Connection;
  errors: ErrorPresenter;
  /** The window's questions, messages and progress. */
  prompts: Prompts;
  log: Logger;
  globalState: vscode.Memento;
  /** The user's own record of what was attached from this workspace (record.ts). */
  record?: FeedbackRecord;
}

const SET_SERVICE_URL = { title: 'Set Service URL', command: 'svc.setBaseUrl' };

/**
 * Attaches feedback to a call (see commands.ts for the arguments). Whatever is missing is asked
 * for, except the creator: it comes from the `svc.feedback.creator` setting unless given. With
 * `kind` given (scripted use) nothing is asked and refusals are thrown.
 */
export class FeedbackManager {
  private readonly retryIds = new RetryIds(randomUUID);

  constructor(private readonly deps: FeedbackDeps) {}

  async attachFrom(first?: unknown, second?: unknown): Promise<FeedbackCreateResponse | undefined> {
    let node: ThreadArg | undefined;
    let uri: vscode.Uri | undefined;
    let raw: unknown;
    if (isThreadNode(first)) {
      node = first;
      // A multi-selection in a view passes the selected nodes as the second argument.
      raw = Array.isArray(second) ? undefined : second;
    } else if (first instanceof vscode.Uri) {
      uri = first; // editor/context and editor/title menus pass the document's URI
    } else {
      raw = first;
    }
    const args = parseAttachArgs(raw);
    // Not from a menu, the palette or a ref link: a script, which is never asked anything.
    const scripted = raw !== undefined && raw !== null && args.via !== 'link';
    try {
      return await this.attach(args, node, uri, scripted);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      this.deps.log.warn(`Attach feedback: ${e.message}`);
      if (scripted) throw e;
      // From a link (only a ref given) the refusal is shown, with its fix, before any question.
      background(this.deps.errors.show(e), 'Showing why no feedback was sent');
      return undefined;
    }
  }

  private async attach(args: AttachArgs, node: ThreadArg | undefined, uri: vscode.Uri | undefined, scripted: boolean): Promise<FeedbackCreateResponse | undefined> {
    const { connection } = this.deps;
    const project = connection.config.project;
    if (!project) {
      throw new InputError('No project is selected: set svc.project before attaching feedback.', { field: 'svc.project' }, { fix: { title: 'Select Project', command: 'svc.selectProject' } });
    }
    if (!connection.client) {
      const why = connection.clientError ? `svc.baseUrl is not usable (${connection.clientError}).` : 'No svc service is configured (svc.baseUrl).';
      throw new InputError(why, { field: 'svc.baseUrl' }, { fix: SET_SERVICE_URL });
    }

    // 1. The ref. It is checked against the project before anything else is asked or sent.
    const ref = await this.resolveRef(args, node, uri, project, scripted);
    if (ref === undefined) return undefined;
    const parsedRef = parseRef(ref);
    if (!parsedRef.ok) throw new InputError(`"${ref}" is not a ref: it ${parsedRef.reason}.`, { field: 'ref' });
    const mismatch = projectMismatch(parsedRef.ref, project);
    if (mismatch) {
      const fix = { title: `Switch to ${parsedRef.ref.projectId}`, command: 'svc.selectProject', args: { projectId: parsedRef.ref.projectId } };
      throw new InputError(mismatch, { field: 'ref' }, { fix });
    }

    // 2. The kind and its content. A script gives them: it is never asked.
    if (scripted) requireContent(args);
    const kind = args.kind ?? (await pickKind(this.deps.prompts, ref));
    if (!kind) return undefined;
    let feedbackType: string;
    let payload: JsonObject | undefined;
    if (kind === 'note') {
      const note = args.note ?? (await askNote(this.deps.prompts, ref));
      if (note === undefined) return undefined;
      feedbackType = NOTE_TYPE;
      payload = { note };
    } else if (kind === 'reaction') {
      const emoji = args.emoji ?? (await pickEmoji(this.deps.prompts, ref));
      if (emoji === undefined) return undefined;
      feedbackType = REACTION_TYPE;
      payload = { emoji };
    } else {
      const type = args.feedbackType ?? (await askFeedbackType(this.deps.prompts, this.deps.globalState));
      if (type === undefined) return undefined;
      feedbackType = type;
      payload = args.payload;
      if (payload) {
        const problem = payloadProblemFor(type, payload);
        if (problem) throw new InputError(problem, { field: 'payload' });
      }
    }

    // 3. The creator: the argument when given (null for none), else the svc.feedback.creator setting. Never asked.
    const creator: string | null = args.creator !== undefined ? args.creator : connection.config.feedbackCreator || null;

    const base: FeedbackCreateRequest = {
      project_id: project,
      svc_ref: ref,
      feedback_type: feedbackType,
      payload: payload ?? dict(),
      ...(creator ? { creator } : {}),
    };
    if (payload) return this.send(base, args.id, scripted);
    return this.sendFromDocument(base, args.id);
  }

  private async resolveRef(args: AttachArgs, node: ThreadArg | undefined, uri: vscode.Uri | undefined, project: string, scripted: boolean): Promise<string | undefined> {
    if (args.ref) return args.ref;
    if (node) return this.refOfThread(node, args, scripted);
    const inEditor = refsInEditor(uri);
    if (inEditor.length === 1 || (inEditor.length > 1 && scripted)) return inEditor[0];
    if (inEditor.length > 1) return pickRef(this.deps.prompts, inEditor, project);
    if (scripted) throw new InputError('svc.attachFeedback: give the ref ({ ref: "svc:///<entity>/<project>/call/<id>" }): no thread and no ref in the active editor name the call.', { field: 'ref' });
    return askRef(this.deps.prompts, project);
  }

  private async refOfThread(node: ThreadArg, args: AttachArgs, scripted: boolean): Promise<string | undefined> {
    const row = node.row;
    if (args.turn) {
      const id = args.turn === 'first' ? row.first_turn_id : row.last_turn_id;
      if (!id) throw new InputError(`Thread ${row.thread_id} has no ${args.turn} turn id.`, { field: `${args.turn}_turn_id` });
      return callRef(node.project, id);
    }
    const choices = turnChoices(row);
    if (choices.length === 0) throw new InputError(`Thread ${row.thread_id} has no turn ids to attach feedback to.`, { field: 'first_turn_id' });
    if (choices.length === 1) return callRef(node.project, choices[0]!.id);
    if (scripted) throw new InputError(`svc.attachFeedback: thread ${row.thread_id} has two turns: give turn "first" or "last".`, { field: 'turn' });
    return pickTurn(this.deps.prompts, row.thread_id, choices, (id) => callRef(node.project, id));
  }

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
    if (!client) throw new InputError('No svc service is configured (svc.baseUrl).', { field: 'svc.baseUrl' }, { fix: SET_SERVICE_URL });
    // Run by the user: the key's use may be asked about first. A scripted call is never asked.
    if (!scripted) await connection.prepare('trace');
    try {
      const res = await withAbortableProgress(
        this.deps.prompts,
        `svc: Attaching ${req.feedback_type} feedback to ${shortRef(req.svc_ref)}…`,
        (_progress, abort) => client.feedback.create({ ...req, id }, { signal: abort.signal }),
      );
      this.retryIds.succeeded(key);
      log.info(`Feedback ${res.id} (${req.feedback_type}) attached to ${req.svc_ref}`);
      await this.deps.record
        ?.add({ ref: req.svc_ref, kind: req.feedback_type, content: payloadContent(req.payload), time: res.created_at || new Date().toISOString(), id: res.id || id })
        .catch((e: unknown) => log.warn(`Could not record feedback ${res.id} in this workspace: ${String(e)}`));
      announceCreated(this.deps.prompts, res, req.creator ?? undefined);
      return res;
    } catch (e) {
      if (e instanceof CancelledError) {
        log.info(`Attaching feedback to ${req.svc_ref} was cancelled (id ${id} is kept for a retry).`);
        return undefined;
      }
      // Shown by the user's action: the presenter offers "Sign In" for a 401/403 itself (one offer,
      // not two), and Retry for a failure that may pass on a second try; it resends with the same
      // id (no second row). A scripted caller gets the rejection, and a sign-in that stopped
      // working is the Connection's to announce.
      connection.reportFailure(e, { prompt: scripted });
      if (rethrow) throw e;
      const retry = e instanceof SvcError && e.transient ? { retry: () => this.send(req, id, false) } : {};
      background(errors.show(e, 'Could not attach feedback', retry), 'Showing an error');
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
        const { prompts } = this.deps;
        const choice = await (isError ? prompts.showErrorMessage(message, 'Send', 'Cancel') : prompts.showInformationMessage(message, 'Send', 'Cancel'));
        if (choice !== 'Send') return undefined;
        if (doc.isClosed) {
          background(prompts.showWarningMessage('svc: The payload document was closed; no feedback was sent.'), 'Showing a warning');
          return undefined;
        }
        const parsed = parsePayloadText(doc.getText());
        const problem = parsed.ok ? payloadProblemFor(base.feedback_type, parsed.payload) : parsed.reason;
        if (problem || !parsed.ok) {
          message = `svc: ${problem} Fix the payload, then click Send.`;
          isError = true;
          continue;
        }
        try {
          return await this.send({ ...base, payload: parsed.payload }, explicitId, false, true);
        } catch (e) {
          background(this.deps.errors.show(e, 'Could not attach feedback'), 'Showing an error');
          message = 'svc: Sending failed (see the error). Click Send to try again; the retry cannot create a duplicate.';
          isError = true;
          continue;
        }
      }
    } finally {
      await closeWithoutSaving(doc);
    }
  }
}

/** What a script must give, since it is never asked: the kind and its content. */
function requireContent(args: AttachArgs): void {
  if (args.kind === undefined) throw new InputError('svc.attachFeedback: give the feedback: { note }, { emoji } or { feedbackType, payload } (or kind with it).', { field: 'kind' });
  if (args.kind === 'note' && args.note === undefined) throw new InputError('svc.attachFeedback: kind "note" needs note (1 to 1024 characters).', { field: 'note' });
  if (args.kind === 'reaction' && args.emoji === undefined) throw new InputError('svc.attachFeedback: kind "reaction" needs emoji (exactly one emoji).', { field: 'emoji' });
  if (args.kind === 'custom' && (args.feedbackType === undefined || args.payload === undefined)) {
    throw new InputError('svc.attachFeedback: kind "custom" needs feedbackType and payload (a JSON object).', { field: args.feedbackType === undefined ? 'feedbackType' : 'payload' });
  }
}
