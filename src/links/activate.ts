/** Deep links (vscode://<publisher>.svc/…): opening one, and Copy Link on threads, models and steps. */
import type { Feature, FeatureDeps } from '../service/feature';
import { feature } from '../service/feature';
import { registerCopyLinkCommands, type CopyLinkDeps } from './commands';
import { LinkHandler, type LinkHandlerDeps } from './handler';

export interface LinksDeps extends Pick<FeatureDeps, 'commands' | 'errors' | 'connection'>, Omit<LinkHandlerDeps, 'connection' | 'errors'>, CopyLinkDeps {
  /** Hands the handler to the URI handler src/boot/main.ts registered at activation. */
  readonly uriHandler: (handler: LinkHandler) => void;
}

export function activateLinks(deps: LinksDeps): Feature<LinkHandler> {
  const links = new LinkHandler(deps);
  deps.uriHandler(links);
  return feature(links, registerCopyLinkCommands(deps.commands, deps));
}
