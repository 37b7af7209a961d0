import * as path from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import * as vscode from 'vscode';
import { InputError, originOf } from '../api';
import { dict } from '../api/dict';
import { readRegularSync } from './regular';

/** The largest settings file read to find the restricted settings a workspace sets. */
const MAX_SETTINGS_BYTES = 4 * 1024 * 1024;

/** The one place that reads configuration. */
export const SECTION = 'svc';

/** Where a service URL came from: what decides whether the user must approve sending a key there. */
export type UrlSource = 'user' | 'workspace' | 'environment' | 'none';

export interface UrlSetting {
  value: string;
  source: UrlSource;
  /** The settings file that set it, for a workspace value. */
  file?: string;
}

export interface SvcConfig {
  baseUrl: string;
  trainingBaseUrl: string;
  /** Where svc.baseUrl came from. */
  baseUrlFrom: UrlSetting;
  /** Where the model endpoints' URL came from: svc.trainingBaseUrl, else the same as baseUrl. */
  trainingBaseUrlFrom: UrlSetting;
  project: string;
  models: string[];
  threadsPageSize: number;
  checkpointsPageSize: number;
  /** Seconds between polls of an open training dashboard; 0 = off. */
  checkpointsPollSeconds: number;
  /** Notify about checkpoints found by a poll (opt-in). */
  checkpointsNotify: boolean;
  /** The metric checkpoint rows show; empty: the first reward-like one (checkpoints/metric.ts). */
  checkpointsMetric: string;
  requestTimeoutSeconds: number;
  allowInsecureHttp: boolean;
  /** Settings of this workspace that Restricted Mode ignores, e.g. `svc.baseUrl`. */
  ignoredWorkspaceSettings: string[];
  /** The name recorded as the creator of feedback; empty for none. */
  feedbackCreator: string;
  /** The service's web UI as a URL template (webUi/url.ts); empty when not set. */
  webUiUrl: string;
}

export interface ProxyConfig {
  url?: string;
  noProxy: string[];
  strictSSL: boolean;
  /** VS Code's http.systemCertificates: also trust the operating system's certificates. */
  systemCertificates: boolean;
}

/** Settings a workspace may set only once trusted (package.json restrictedConfigurations). */
export const RESTRICTED_SETTINGS = ['svc.baseUrl', 'svc.trainingBaseUrl', 'svc.allowInsecureHttp'] as const;

/** Environment variables that name the service URLs, as the user's own choice. */
export const URL_VARIABLES = { baseUrl: 'SVC_BASE_URL', trainingBaseUrl: 'SVC_TRAINING_BASE_URL' } as const;

function clampInt(value: unknown, min: number, max: number, fallback: number): number {
  const n = typeof value === 'number' && Number.isFinite(value) ? Math.round(value) : fallback;
  return Math.min(max, Math.max(min, n));
}

/** A configuration change as the Connection read it: the values before and after one event. */
export interface ConfigChange {
  before: SvcConfig;
  after: SvcConfig;
}

/** Whether any of `keys` has another value after the change (hosts repeat events without one). */
export function configChanged({ before, after }: ConfigChange, keys: (keyof SvcConfig)[]): boolean {
  return keys.some((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}


/** The file where this workspace's settings live: the .code-workspace file, or the folder's .vscode/settings.json. */
export function workspaceSettingsFile(): string | undefined {
  const file = vscode.workspace.workspaceFile;
  if (file && file.scheme !== 'untitled') return file.scheme === 'file' ? file.fsPath : file.toString();
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) return undefined;
  const uri = vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json');
  return uri.scheme === 'file' ? uri.fsPath : uri.toString();
}

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/**
 * A service URL with its provenance. A workspace value counts only in a trusted workspace (VS Code
 * hides it otherwise; this does not rely on that). A workspace value whose origin the user named
 * too (user settings or an SVC_* variable) counts as the user's.
 */
function readUrl(c: vscode.WorkspaceConfiguration, key: 'baseUrl' | 'trainingBaseUrl', userOrigins: Set<string>): UrlSetting {
  const i = c.inspect<string>(key);
  const workspace = vscode.workspace.isTrusted ? text(i?.workspaceFolderValue) || text(i?.workspaceValue) : '';
  if (workspace) {
    const origin = originOf(workspace);
    if (origin && userOrigins.has(origin)) return { value: workspace, source: 'user' };
    return { value: workspace, source: 'workspace', file: workspaceSettingsFile() };
  }
  const user = text(i?.globalValue);
  if (user) return { value: user, source: 'user' };
  const env = text(process.env[URL_VARIABLES[key]]);
  if (env) return { value: env, source: 'environment' };
  return { value: '', source: 'none' };
}

export function readConfig(): SvcConfig {
  const c = vscode.workspace.getConfiguration(SECTION);
  const models = c.get<unknown[]>('models') ?? [];
  const userOrigins = new Set<string>();
  for (const key of ['baseUrl', 'trainingBaseUrl'] as const) {
    for (const value of [text(c.inspect<string>(key)?.globalValue), text(process.env[URL_VARIABLES[key]])]) {
      const origin = value && originOf(value);
      if (origin) userOrigins.add(origin);
    }
  }
  const baseUrlFrom = readUrl(c, 'baseUrl', userOrigins);
  const training = readUrl(c, 'trainingBaseUrl', userOrigins);
  return {
    baseUrl: baseUrlFrom.value,
    trainingBaseUrl: training.value,
    baseUrlFrom,
    trainingBaseUrlFrom: training.value ? training : baseUrlFrom,
    project: (c.get<string>('project') ?? '').trim(),
    models: [...new Set(models.filter((m): m is string => typeof m === 'string' && m.trim() !== '').map((m) => m.trim()))],
    threadsPageSize: clampInt(c.get('threads.pageSize'), 1, 500, 50),
    checkpointsPageSize: clampInt(c.get('checkpoints.pageSize'), 1, 100, 20),
    checkpointsPollSeconds: clampInt(c.get('checkpoints.pollSeconds'), 0, 86_400, 30),
    checkpointsNotify: c.get<boolean>('checkpoints.notifyNew') === true,
    checkpointsMetric: (c.get<string>('checkpoints.metric') ?? '').trim(),
    requestTimeoutSeconds: clampInt(c.get('requestTimeoutSeconds'), 1, 600, 30),
    // Machine scope: a workspace cannot set it.
    allowInsecureHttp: c.get<boolean>('allowInsecureHttp') === true,
    ignoredWorkspaceSettings: vscode.workspace.isTrusted ? [] : restrictedWorkspaceSettings(),
    feedbackCreator: (c.get<string>('feedback.creator') ?? '').trim(),
    // Restricted (package.json): an untrusted workspace cannot point Open in Web UI elsewhere.
    webUiUrl: (c.get<string>('webUiUrl') ?? '').trim(),
  };
}

/** svc.search.cacheSizeGiB in bytes: the run search's disk cache budget (0: no disk cache). Machine scope: a workspace cannot set it. */
export function readSearchCacheBytes(): number {
  const gib = vscode.workspace.getConfiguration(SECTION).get<unknown>('search.cacheSizeGiB');
  const n = typeof gib === 'number' && Number.isFinite(gib) ? Math.min(1024, Math.max(0, gib)) : 8;
  return Math.round(n * 1024 ** 3);
}

/**
 * The restricted svc settings this workspace's files set. In Restricted Mode VS Code hides them
 * from the API (inspect() too), so the files are read: the views must say they are ignored.
 */
export function restrictedWorkspaceSettings(): string[] {
  const files: { file: string; settings: (v: Record<string, unknown>) => unknown }[] = [];
  const ws = vscode.workspace.workspaceFile;
  if (ws?.scheme === 'file') files.push({ file: ws.fsPath, settings: (v) => v.settings });
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    if (folder.uri.scheme === 'file') files.push({ file: path.join(folder.uri.fsPath, '.vscode', 'settings.json'), settings: (v) => v });
  }
  const found = new Set<string>();
  for (const { file, settings } of files) {
    let parsed: unknown;
    try {
      // A cloned repository's file: a regular file of sane size only (a link to /dev/zero would
      // never end, and this runs synchronously).
      parsed = parseJsonc(readRegularSync(file, MAX_SETTINGS_BYTES).toString('utf8'), [], { allowTrailingComma: true });
    } catch {
      continue;
    }
    const obj = parsed && typeof parsed === 'object' ? settings(parsed as Record<string, unknown>) : undefined;
    if (!obj || typeof obj !== 'object') continue;
    const values = obj as Record<string, unknown>;
    const nested = (values.svc && typeof values.svc === 'object' ? values.svc : dict()) as Record<string, unknown>;
    for (const key of RESTRICTED_SETTINGS) {
      if (values[key] !== undefined || nested[key.slice(SECTION.length + 1)] !== undefined) found.add(key);
    }
  }
  return [...found];
}

/** VS Code's own proxy and certificate settings; the bundled undici does not see them otherwise. */
export function readProxyConfig(): ProxyConfig {
  const http = vscode.workspace.getConfiguration('http');
  const url = (http.get<string>('proxy') ?? '').trim();
  return {
    url: url || undefined,
    noProxy: http.get<string[]>('noProxy') ?? [],
    strictSSL: http.get<boolean>('proxyStrictSSL') ?? true,
    systemCertificates: http.get<boolean>('systemCertificates') ?? true,
  };
}

/** Where a command writes a setting: the user's settings unless the user chose this workspace. */
export type SettingsScope = 'user' | 'workspace';

export function isSettingsScope(value: unknown): value is SettingsScope {
  return value === 'user' || value === 'workspace';
}

/**
 * Why `key` cannot be written to `scope`, or undefined when it can: no workspace is open; Restricted
 * Mode would ignore the value; or the workspace sets the key, so a user value would change nothing.
 */
export function settingProblem(key: string, scope: SettingsScope): string | undefined {
  const full = `${SECTION}.${key}`;
  const restricted = (RESTRICTED_SETTINGS as readonly string[]).includes(full);
  if (scope === 'workspace') {
    if (!vscode.workspace.workspaceFolders?.length) return `No workspace is open, so ${full} can only go to your user settings.`;
    if (restricted && !vscode.workspace.isTrusted) return `In Restricted Mode VS Code ignores ${full} in workspace settings: trust the workspace, or use your user settings.`;
    return undefined;
  }
  const i = vscode.workspace.getConfiguration(SECTION).inspect(key);
  if (i?.workspaceValue !== undefined || i?.workspaceFolderValue !== undefined) {
    return `${full} is set in ${workspaceSettingsFile() ?? 'the workspace settings'}, which overrides your user settings: change it there ("this workspace only"), or remove it from that file.`;
  }
  return undefined;
}

/** Writes svc.`key` to the user's settings or this workspace's; throws a readable error when it cannot take effect. */
export async function writeSetting(key: string, value: unknown, scope: SettingsScope): Promise<void> {
  const problem = settingProblem(key, scope);
  if (problem) throw new InputError(problem, { field: `${SECTION}.${key}` });
  const target = scope === 'workspace' ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await vscode.workspace.getConfiguration(SECTION).update(key, value, target);
}

export function affectsConnection(e: vscode.ConfigurationChangeEvent): boolean {
  return [
    'svc.baseUrl',
    'svc.trainingBaseUrl',
    'svc.requestTimeoutSeconds',
    'svc.allowInsecureHttp',
    'http.proxy',
    'http.noProxy',
    'http.proxyStrictSSL',
    'http.systemCertificates',
  ].some((k) => e.affectsConfiguration(k));
}
