import * as vscode from 'vscode';
import { ConfigurationError } from '../api';
import { approvalId, hostOf, type CredentialSource, type KeyApproval } from './resolve';
import { dict, own } from '../api/dict';
import type { Prompts } from '../ui/prompts';

/** globalState key: approval id -> the user's answer. Never synced, never in settings. */
export const APPROVALS_KEY = 'svc.keyApprovals';

/** A request was not sent because a use of the key is refused or not approved yet. */
export class ApprovalError extends ConfigurationError {
  constructor(
    message: string,
    readonly approvals: KeyApproval[],
    /** True: the user said no (remembered). False: nobody was asked (a scripted call). */
    readonly refused: boolean,
  ) {
    // The presenter offers the fix next to the message.
    super(message, { fix: { title: 'Review Key Use', command: 'svc.reviewKeyUse' } });
  }
}

/** What the key about to be sent is, in words. */
export interface KeyDescription {
  source: CredentialSource;
  borrowedFrom?: string;
  /** The key the user is about to type (sign-in). */
  typed?: boolean;
}

export function describeKey(key: KeyDescription): string {
  if (key.typed) return 'your API key';
  if (key.borrowedFrom) return `the key stored for ${key.borrowedFrom}`;
  switch (key.source) {
    case 'secretStorage':
    case 'session':
      return 'the key you signed in with';
    case 'environment':
      return 'the key in SVC_API_KEY / SVC_PASSWORD';
    case 'netrc':
      return 'the key in your netrc file';
    case 'netrcDefault':
      return 'the key of the "default" entry of your netrc file';
  }
}

/** One sentence per approval: what would happen. */
function reason(a: KeyApproval): string {
  switch (a.kind) {
    case 'workspaceUrl':
      return `The workspace settings (${a.file}) set ${a.setting} to ${a.origin}.`;
    case 'borrowKey':
      return `svc.trainingBaseUrl sends the model endpoints to ${a.to}, which has no key of its own.`;
    case 'netrcDefault':
      return `${a.file} has no "machine ${hostOf(a.origin)}" entry; its "default" entry names no host.`;
  }
}

function targetOf(a: KeyApproval): string {
  return a.kind === 'borrowKey' ? a.to : a.origin;
}

/** The question of a modal: it names the origins, the settings file and the key. */
export function question(approvals: KeyApproval[], key: KeyDescription): { message: string; detail: string } {
  const target = targetOf(approvals[0]!);
  const borrow = approvals.find((a): a is Extract<KeyApproval, { kind: 'borrowKey' }> => a.kind === 'borrowKey');
  const ask = borrow ? `Use the key of ${borrow.from} for ${borrow.to}?` : `Send ${describeKey(key)} to ${target}?`;
  return {
    message: `svc: ${ask}`,
    detail: `${approvals.map(reason).join(' ')}\n\nsvc remembers your answer for ${target}. "svc: Forget Key Approvals" asks again.`,
  };
}

function refusedMessage(approvals: KeyApproval[]): string {
  const target = targetOf(approvals[0]!);
  return `svc did not send your key to ${target}: you refused it. ${approvals.map(reason).join(' ')} Run "svc: Review Key Use" to answer again.`;
}

function requiredMessage(approvals: KeyApproval[]): string {
  const target = targetOf(approvals[0]!);
  return (
    `svc did not send your key to ${target}: that needs your approval, and a command called with arguments does not ask. ` +
    `${approvals.map(reason).join(' ')} Run "svc: Review Key Use" (or open the svc views) to answer.`
  );
}

export const ALLOW = 'Allow';
export const DONT_ALLOW = "Don't Allow";

/**
 * The user's answers to "may this key go there?": asked once per question in a modal, remembered
 * in globalState (a workspace cannot write there). A question closed without an answer counts as
 * no for the rest of this window, so a view does not ask again on every reload.
 */
export class KeyApprovals {
  private readonly dismissed = new Set<string>();
  private readonly asking = new Map<string, Promise<boolean>>();

  constructor(
    private readonly state: vscode.Memento,
    /** Where the question is asked (a modal warning). */
    private readonly prompts: Pick<Prompts, 'showWarningMessage'>,
  ) {}

  /** How the uses in `approvals` stand: all approved, one refused (or closed unanswered), or to be asked. */
  status(approvals: KeyApproval[]): 'approved' | 'refused' | 'ask' {
    if (approvals.some((a) => this.decision(a) === false || this.dismissed.has(approvalId(a)))) return 'refused';
    return approvals.every((a) => this.decision(a) === true) ? 'approved' : 'ask';
  }

  /** The remembered answer, or undefined when the question was never answered. */
  decision(a: KeyApproval): boolean | undefined {
    const all = this.state.get<Record<string, boolean>>(APPROVALS_KEY, dict());
    const value = own(all, approvalId(a));
    return typeof value === 'boolean' ? value : undefined;
  }

  async record(approvals: KeyApproval[], allowed: boolean): Promise<void> {
    const all = dict(this.state.get<Record<string, boolean>>(APPROVALS_KEY, dict()));
    for (const a of approvals) {
      all[approvalId(a)] = allowed;
      this.dismissed.delete(approvalId(a));
    }
    await this.state.update(APPROVALS_KEY, all);
  }

  /** Forgets every answer: the next use of each asks again. */
  async forget(): Promise<void> {
    this.dismissed.clear();
    await this.state.update(APPROVALS_KEY, undefined);
  }

  /**
   * Returns when every use in `approvals` is approved; otherwise asks (with `prompt`: a user's
   * action, never a scripted command or a request on its way) or throws an ApprovalError.
   * `reconsider`: ask again about uses refused before (an explicit sign-in or review, never a view
   * loading).
   */
  async require(approvals: KeyApproval[], key: KeyDescription, options: { prompt: boolean; reconsider?: boolean }): Promise<void> {
    const pending = approvals.filter((a) => this.decision(a) !== true);
    if (!pending.length) return;
    const refused = pending.filter((a) => this.decision(a) === false || this.dismissed.has(approvalId(a)));
    if (refused.length && !(options.reconsider && options.prompt)) throw new ApprovalError(refusedMessage(refused), refused, true);
    if (!options.prompt) throw new ApprovalError(requiredMessage(pending), pending, false);
    // Two views loading at once ask one question.
    const id = pending.map(approvalId).join('\n');
    let asking = this.asking.get(id);
    if (!asking) {
      asking = this.ask(pending, key).finally(() => this.asking.delete(id));
      this.asking.set(id, asking);
    }
    if (!(await asking)) throw new ApprovalError(refusedMessage(pending), pending, true);
  }

  private async ask(approvals: KeyApproval[], key: KeyDescription): Promise<boolean> {
    const { message, detail } = question(approvals, key);
    const choice = await this.prompts.showWarningMessage(message, { modal: true, detail }, ALLOW, DONT_ALLOW);
    if (choice === ALLOW || choice === DONT_ALLOW) {
      await this.record(approvals, choice === ALLOW);
      return choice === ALLOW;
    }
    for (const a of approvals) this.dismissed.add(approvalId(a));
    return false;
  }
}
