/** What Upload Trajectories is given, what it reports, and what it keeps for Retry Remaining. */
import type * as vscode from 'vscode';
import type { Chunk, UploadResult } from './upload';

export interface UploadArgs {
  modelId?: string;
  split?: string;
  /** Files, when scripted without explorer arguments. */
  files?: (string | vscode.Uri)[];
  /** Largest request body, bytes (tests use small values to get many requests). */
  maxRequestBytes?: number;
  /** Send content this editor already sent to the same model and split (refused otherwise). */
  allowRepeat?: boolean;
}

export interface FileUploadReport {
  file: string;
  /** The training step, for a step file of the official client's layout. */
  step?: number;
  result?: UploadResult;
  /** Set when validation failed and nothing was sent. */
  problems?: number;
}

export interface UploadReport {
  status: 'invalid' | 'cancelled' | 'done' | 'failed' | 'aborted';
  files: FileUploadReport[];
}

/** An upload that has finished: where it went and its report. */
export interface UploadFinished {
  modelId: string;
  split: string;
  report: UploadReport;
}

export interface Remaining {
  modelId: string;
  split: string;
  maxRequestBytes?: number;
  /**
   * Per file: the group to resume from (files not started yet resume from 0), and the file's
   * size and mtime when the upload began: resuming by group index is only right for the same file.
   */
  files: { uri: vscode.Uri; startGroup: number; size?: number; mtime?: number }[];
  /**
   * The request before `files[0].startGroup` whose outcome is unknown (a 5xx, or a connection
   * lost after sending): the service may have logged it. Retry Remaining skips it unless the
   * user chooses to send it too.
   */
  uncertain?: { chunk: Chunk; why: string };
}

export interface RetryArgs {
  /** Lines whose outcome is unknown: skip them (the default) or send them too. */
  uncertain?: 'skip' | 'send';
}
