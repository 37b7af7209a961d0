import * as vscode from 'vscode';
import { THREAD_SORT_FIELDS, type SortBy, type CheckpointOrder } from '../api';

/** The one place that reads configuration. */
export const SECTION = 'svc';

export interface SvcConfig {
  baseUrl: string;
  trainingBaseUrl: string;
  project: string;
  models: string[];
  threadsPageSize: number;
  threadsSortBy: SortBy;
  checkpointsPageSize: number;
  checkpointsOrder: CheckpointOrder;
  requestTimeoutSeconds: number;
  allowInsecureHttp: boolean;
}

export interface ProxyConfig {
  url?: string;
  noProxy: string[];
  strictSSL: boolean;
}

const SORT_FIELDS = new Set<string>(THREAD_SORT_FIELDS);

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

export function readConfig(): SvcConfig {
  const c = vscode.workspace.getConfiguration(SECTION);
  const sort = c.get<{ field?: string; direction?: string }>('threads.sortBy') ?? {};
  const models = c.get<unknown[]>('models') ?? [];
  return {
    baseUrl: (c.get<string>('baseUrl') ?? '').trim(),
    trainingBaseUrl: (c.get<string>('trainingBaseUrl') ?? '').trim(),
    project: (c.get<string>('project') ?? '').trim(),
    models: [...new Set(models.filter((m): m is string => typeof m === 'string' && m.trim() !== '').map((m) => m.trim()))],
    threadsPageSize: clampInt(c.get('threads.pageSize'), 1, 500, 50),
    threadsSortBy: {
      field: (SORT_FIELDS.has(sort.field ?? '') ? sort.field : 'last_updated') as SortBy['field'],
      direction: sort.direction === 'asc' ? 'asc' : 'desc',
    },
    checkpointsPageSize: clampInt(c.get('checkpoints.pageSize'), 1, 100, 20),
    checkpointsOrder: c.get<string>('checkpoints.order') === 'asc' ? 'asc' : 'desc',
    requestTimeoutSeconds: clampInt(c.get('requestTimeoutSeconds'), 1, 600, 30),
    allowInsecureHttp: c.get<boolean>('allowInsecureHttp') === true,
  };
}

/** VS Code's own proxy settings; the bundled undici does not see them otherwise. */
export function readProxyConfig(): ProxyConfig {
  const http = vscode.workspace.getConfiguration('http');
  const url = (http.get<string>('proxy') ?? '').trim();
  return {
    url: url || undefined,
    noProxy: http.get<string[]>('noProxy') ?? [],
    strictSSL: http.get<boolean>('proxyStrictSSL') ?? true,
  };
}

/** Where a setting change made by a command goes: the workspace when one is open. */
export function settingsTarget(): vscode.ConfigurationTarget {
  return vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
}

export async function updateSetting(key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration(SECTION).update(key, value, settingsTarget());
}

export function affectsConnection(e: vscode.ConfigurationChangeEvent): boolean {
  return ['svc.baseUrl', 'svc.trainingBaseUrl', 'svc.requestTimeoutSeconds', 'svc.allowInsecureHttp', 'http.proxy', 'http.noProxy', 'http.proxyStrictSSL'].some(
    (k) => e.affectsConfiguration(k),
  );
}
