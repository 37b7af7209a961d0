/**
 * The part of undici the client uses: a keep-alive Agent, a ProxyAgent, and the `request` API.
 *
 * undici's entry point also loads fetch, WebSocket, EventSource, the caches, the mocks and every
 * interceptor: 523 KiB of the bundle, minified, against 301 KiB for these modules (measured
 * with esbuild's metafile; `npm run bench` prints the bundle sizes). The types still come from the
 * package's own declarations. Only src/api/http.ts imports this file.
 */
import type * as undici from 'undici';

/* eslint-disable @typescript-eslint/no-require-imports -- undici ships these modules as CommonJS without declarations; the types are the package's own */
const AgentClass = require('undici/lib/dispatcher/agent') as typeof undici.Agent;
const ProxyAgentClass = require('undici/lib/dispatcher/proxy-agent') as typeof undici.ProxyAgent;
const DispatcherClass = require('undici/lib/dispatcher/dispatcher') as typeof undici.Dispatcher;
// What undici's entry point does on load: every dispatcher gets request/stream/pipeline/connect/
// upgrade. ProxyAgent needs it (it opens its tunnels with `connect`).
Object.assign(DispatcherClass.prototype, require('undici/lib/api'));
/* eslint-enable @typescript-eslint/no-require-imports */

export const Agent = AgentClass;
export const ProxyAgent = ProxyAgentClass;
export type Dispatcher = undici.Dispatcher;
export type { undici };

export type RequestOptions = Omit<undici.Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: undici.Dispatcher };

/**
 * undici's `request(url, options)`, without its global dispatcher: every call names its own.
 * `written.value` becomes true when undici starts writing the request on a connected socket (its
 * `onConnect` of the request): after that, the service may have received it, whatever the error.
 */
export function request(url: URL, { dispatcher, ...options }: RequestOptions, written?: { value: boolean }): Promise<undici.Dispatcher.ResponseData> {
  const target = written ? noticingWrites(dispatcher, written) : dispatcher;
  return target.request({ ...options, origin: url.origin, path: `${url.pathname}${url.search}` });
}

/** The dispatcher, with each request's handler told to set `written` when undici writes it. */
function noticingWrites(dispatcher: undici.Dispatcher, written: { value: boolean }): undici.Dispatcher {
  const wrapped = Object.create(dispatcher) as undici.Dispatcher;
  wrapped.dispatch = (opts, handler) =>
    dispatcher.dispatch(
      opts,
      new Proxy(handler, {
        get(target, prop) {
          const value = Reflect.get(target, prop) as unknown;
          if (prop === 'onConnect' && typeof value === 'function') {
            return (...args: unknown[]) => {
              written.value = true;
              return (value as (...a: unknown[]) => unknown).apply(target, args);
            };
          }
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      }),
    );
  return wrapped;
}
