import { CallsApi } from './calls';
import { FeedbackApi } from './feedback';
import { HttpClient, type HttpClientOptions } from './http';
import { ModelsApi } from './models';
import { ThreadsApi } from './threads';

export type ServiceClientOptions = HttpClientOptions;

/** The svc service: feedback, calls, threads and the model endpoints, over one HTTP client. */
export interface ServiceClient {
  readonly feedback: FeedbackApi;
  readonly calls: CallsApi;
  readonly threads: ThreadsApi;
  readonly models: ModelsApi;
  /** Where the certificates trusted beyond Node's roots came from, and files that failed to load. */
  readonly trustSources: { sources: string[]; problems: string[] };
  /** Closes the connection pools; the client cannot be used afterwards. */
  close(): Promise<void>;
}

/** Builds a service client. Base URLs are checked at once; credentials are asked per request. */
export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  const http = new HttpClient(options);
  return {
    feedback: new FeedbackApi(http),
    calls: new CallsApi(http),
    threads: new ThreadsApi(http),
    models: new ModelsApi(http),
    trustSources: http.trustSources,
    close: () => http.close(),
  };
}
