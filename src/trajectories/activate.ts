/** Uploads of trajectory files (JSON, JSONL, Parquet) to a model's training log: Upload, Retry Remaining, Cancel. */
import { feature, type Feature, type FeatureDeps } from '../service/feature';
import { registerUploadCommands } from './commands';
import { UploadManager } from './manager';

export function activateUploads({ commands, errors, log, connection, storage, prompts, contextKeys }: FeatureDeps): Feature<UploadManager> {
  const uploads = new UploadManager(connection, errors, prompts, contextKeys, log, storage);
  return feature(uploads, registerUploadCommands({ commands, manager: uploads }));
}
