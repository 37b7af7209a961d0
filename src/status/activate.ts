/** The status bar item (project, sign-in state) and the Restricted Mode notice on the views. */
import type * as vscode from 'vscode';
import { feature, type Feature, type FeatureDeps } from '../service/feature';
import { RestrictedModeNotice } from './restrictedMode';
import { StatusBar } from './statusBar';

export interface StatusDeps extends Pick<FeatureDeps, 'connection'> {
  /** The views whose message says what Restricted Mode holds back. */
  views: vscode.TreeView<unknown>[];
}

export function activateStatus({ connection, views }: StatusDeps): Feature<{ statusBar: StatusBar; restrictedMode: RestrictedModeNotice }> {
  const statusBar = new StatusBar(connection);
  const restrictedMode = new RestrictedModeNotice(connection, views);
  return feature({ statusBar, restrictedMode }, [statusBar, restrictedMode]);
}
