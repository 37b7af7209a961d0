/** Open in Web UI: a thread, a turn or a ref in the service's web UI (svc.webUiUrl). */
import { feature, type Feature, type FeatureDeps } from '../service/feature';
import { WebUi } from './commands';

export function activateWebUi({ commands, connection }: Pick<FeatureDeps, 'commands' | 'connection'>): Feature<WebUi> {
  const webUi = new WebUi(connection);
  return feature(webUi, webUi.register(commands));
}
