import { startReferenceServer, type ReferenceServer, type ReferenceServerOptions } from '../../server';
import { createServiceClient, type Trajectory, type RequestLogEvent, type ServiceClient, type ServiceClientOptions } from '../../../src/api';

export const KEY = 'test-key-0123456789abcdef0123456789abcdef';
export const USER = 'user-1';
export const PROJECT = 'acme/chatbot';

export interface Harness {
  server: ReferenceServer;
  client: ServiceClient;
  events: RequestLogEvent[];
  make(overrides?: Partial<ServiceClientOptions>): ServiceClient;
  close(): Promise<void>;
}

/** A reference server on loopback and a client for it, with fast retries. */
export async function harness(serverOptions: ReferenceServerOptions = {}, clientOptions: Partial<ServiceClientOptions> = {}): Promise<Harness> {
  const server = await startReferenceServer({ apiKeys: [{ key: KEY, userId: USER }], ...serverOptions });
  const events: RequestLogEvent[] = [];
  const clients: ServiceClient[] = [];
  const make = (overrides: Partial<ServiceClientOptions> = {}) => {
    const c = createServiceClient({
      traceBaseUrl: server.url,
      credentials: async () => ({ username: 'api', password: KEY, accessToken: KEY }),
      retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 2000 },
      timeoutMs: 5000,
      logger: (e) => events.push(e),
      env: {},
      ...clientOptions,
      ...overrides,
    });
    clients.push(c);
    return c;
  };
  const client = make();
  let closing: Promise<void> | undefined;
  return {
    server,
    client,
    events,
    make,
    // Idempotent: a test may close early and afterEach closes again.
    close: () => (closing ??= (async () => {
      await Promise.all(clients.map((c) => c.close()));
      await server.close();
    })()),
  };
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

export function trajectory(reward = 1): Trajectory {
  return {
    messages_and_choices: [
      { role: 'user', content: 'What is 2+2?' },
      { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: '4' } },
    ],
    reward,
    metrics: { correct: true },
  };
}
