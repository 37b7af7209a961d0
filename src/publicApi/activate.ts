/** The public API other extensions get from `getApi(1)`: its calls, and its two events fed by the uploads and the dashboards. */
import type * as vscode from 'vscode';
import type { CheckpointsFound, UploadSummary } from '../../api/svc';
import type { Checkpoint } from '../api';
import type { ConnectionHost } from '../agents/connectionHost';
import type { UploadManager } from '../trajectories/manager';
import { feature, type Feature, type FeatureDeps } from '../service/feature';
import { createPublicApi, toCheckpointsFound, toUploadSummary, type SvcApiCalls } from './api';

export interface PublicApiFeatureDeps extends Pick<FeatureDeps, 'errors' | 'connection'> {
  /** Hands the calls to the API object src/boot/main.ts returned at activation; returns how to fire its events. */
  readonly publicApi: (calls: SvcApiCalls) => { uploadFinished(e: UploadSummary): void; checkpointsFound(e: CheckpointsFound): void };
  uploads: UploadManager;
  /** The agents' tools: the API's summaries are their texts, and their uploads fire the same event. */
  agentHost: ConnectionHost;
  /** The checkpoints the dashboards' polls found. */
  onDidFindCheckpoints: vscode.Event<{ modelId: string; checkpoints: Checkpoint[] }>;
}

export function activatePublicApi({ errors, connection, publicApi, uploads, agentHost, onDidFindCheckpoints }: PublicApiFeatureDeps): Feature {
  const events = publicApi(createPublicApi({ connection, tools: agentHost, errors, uploads }));
  const summary = (e: Parameters<typeof toUploadSummary>[0]) => events.uploadFinished(toUploadSummary(e, (error) => errors.describe(error)));
  // The agents' tool runs the same upload job: its uploads fire the same event.
  agentHost.onUploadFinished = summary;
  return feature(undefined, [uploads.onDidFinish(summary), onDidFindCheckpoints((e) => events.checkpointsFound(toCheckpointsFound(e)))]);
}
