// Types for workbench.js (plain CommonJS so the Node scripts need no build step).
import type { BrowserContext, Page } from 'playwright-core';

/** One of the VS Code hosts of scripts/host/paths.js. */
export interface HostSpec {
  /** '1.100' | '1.139': what SVC_HOST / --host-version name. */
  id: string;
  /** The VS Code version, '1.139.1'. */
  vscode: string;
  /** The code-server release, '4.139.1'. */
  codeServer: string;
  nodeMajor: number;
  /** The workbench ignores the URL payload's development paths (1.139). */
  devOptionsInConfig: boolean;
  /** User settings every run on this host gets (callers override). */
  settings: Record<string, unknown>;
}

export interface CodeServer {
  hostSpec: HostSpec;
  url: string;
  port: number;
  host: string;
  pid: number;
  workspace: string;
  extensionsDir: string;
  userDataDir: string;
  output(): string;
  remoteUri(absPath: string): string;
  workbenchUrl(opts?: { folder?: string; payload?: [string, string][] }): string;
  stop(): Promise<void>;
}

export interface Workbench {
  page: Page;
  context: BrowserContext;
  server: CodeServer;
  /** The host this workbench runs (SVC_HOST, or OpenWorkbenchOptions.host). */
  hostSpec: HostSpec;
  waitForReady(timeoutMs?: number): Promise<void>;
  /** Waits until the status bar no longer shows "Activating Extensions...". */
  waitForActivation(timeoutMs?: number): Promise<void>;
  /** Runs the command-palette entry whose label is exactly `title` ("Category: Title"). */
  runCommand(title: string, timeoutMs?: number): Promise<void>;
  /** Shows the activity-bar view container titled `title` (waits for it to appear; no-op if already shown). */
  clickActivity(title: string, timeoutMs?: number): Promise<void>;
  /** Saves a PNG of the workbench; relative paths are resolved against the repo root. */
  screenshot(file: string): Promise<string>;
  close(): Promise<void>;
}

export interface OpenWorkbenchOptions {
  /** 'vsix' (default): package + install; 'dev': repo as extensionDevelopmentPath. */
  extension?: 'vsix' | 'dev';
  vsix?: string;
  workspace?: string;
  settings?: Record<string, unknown>;
  env?: Record<string, string>;
  viewport?: { width: number; height: number };
  /** '1.100' | '1.139' (default: SVC_HOST, else 1.100). */
  host?: string;
  /** More VSIX files to install beside ours (test helper extensions). */
  extraVsix?: string[];
}

export function openWorkbench(opts?: OpenWorkbenchOptions): Promise<Workbench>;
export function packageVsix(out?: string): string;
export const EXTENSION_ID: string;
