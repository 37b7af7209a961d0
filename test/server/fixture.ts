import { readFileSync } from 'node:fs';
import type { ApiKey, BasicUser, BearerToken } from './auth';
import { addCalls, type SeedCall } from './seed';
import type { Checkpoint, Store } from './store';
import { UUID_RE } from './validate';

/** Initial data of a reference server (test/fixtures/demo.json has this shape). */
export interface Fixture {
  description?: string;
  /** The fixed "now" the data was generated against, so demo output is deterministic. */
  now?: string;
  apiKeys?: ApiKey[];
  basicUsers?: BasicUser[];
  bearerTokens?: BearerToken[];
  /** project_id -> its calls (start and end fields together, see SeedCall for defaults). */
  projects?: Record<string, { calls: SeedCall[] }>;
  /** model_id -> its checkpoints; a model with an empty list exists but has no checkpoints. */
  models?: Record<string, { checkpoints: Checkpoint[] }>;
}

/** The fixture itself, or the parsed content of the JSON file at that path. */
export function loadFixture(source: Fixture | string): Fixture {
  if (typeof source !== 'string') return source;
  return JSON.parse(readFileSync(source, 'utf8')) as Fixture;
}

/** Loads calls and checkpoints into the store; calls go through the upsert validation. */
export function applyFixture(fixture: Fixture, store: Store): void {
  for (const [projectId, project] of Object.entries(fixture.projects ?? {})) {
    addCalls(store, projectId, project.calls);
  }
  for (const [modelId, model] of Object.entries(fixture.models ?? {})) {
    const list = store.model(modelId);
    for (const cp of model.checkpoints) {
      checkCheckpoint(modelId, cp);
      list.push({ id: cp.id, step: cp.step, metrics: { ...cp.metrics } });
    }
    list.sort((a, b) => a.step - b.step);
  }
}

function checkCheckpoint(modelId: string, cp: Checkpoint): void {
  const ok =
    typeof cp.id === 'string' &&
    UUID_RE.test(cp.id) &&
    Number.isSafeInteger(cp.step) &&
    typeof cp.metrics === 'object' &&
    cp.metrics !== null &&
    Object.values(cp.metrics).every((v) => typeof v === 'number' && Number.isFinite(v));
  if (!ok) throw new TypeError(`invalid checkpoint in fixture for model ${modelId}: ${JSON.stringify(cp)}`);
}
