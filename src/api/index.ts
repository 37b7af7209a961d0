/** The svc service client. No `vscode` import here, ever: it runs in plain Node. */
export { createServiceClient, type ServiceClient, type ServiceClientOptions } from './client';
export * from './errors';
export type { Credentials, RequestLogEvent, RetryPolicy } from './http';
export { trimSlashes } from './http';
export type { ProxyOptions } from './proxy';
export { isLoopbackHost, LOOPBACK_NO_PROXY } from './proxy';
export { checkKey, PROBE_MODEL, PROBE_PROJECT, type KeyCheck, type KeyCheckOptions } from './verify';
export type { TrustOptions } from './tls';
export type { RetryOptions } from './retry';
export { parseRef, callRef, isProjectId, REF_PATTERN, REF_PREFIX, type ParsedRef, type RefKind } from './refs';
export { decodeJsonl, JsonlError, type JsonlLine } from './jsonl';
export type { CallResult, UpsertBatchOptions } from './calls';
export type { ThreadsQueryOptions } from './threads';
export * from './schemas';
export { displayUrl, hostOf, originOf, serviceUrlProblem } from './urls';
