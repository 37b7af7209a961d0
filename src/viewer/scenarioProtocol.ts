/**
 * The messages between the extension and the scenario webview ("svc: Follow Scenario Across
 * Steps…"), checked on arrival at both ends (zod/mini, as the dashboard's protocol). Pure: shared
 * by both sides.
 */
import * as z from 'zod/mini';

const int = () => z.int().check(z.minimum(0));

export const ScenarioRolloutWire = z.object({ group: int(), trajectory: int(), reward: z.nullable(z.number()), answer: z.string(), cut: z.optional(z.boolean()) });

export const ScenarioStepWire = z.object({
  step: int(),
  /** The step file's name (`0007.parquet`). */
  file: z.string(),
  rollouts: z.array(ScenarioRolloutWire),
  more: z.optional(int()),
  answers: z.array(z.string()),
  changed: z.optional(z.boolean()),
  error: z.optional(z.string()),
});

export const ToScenario = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('history'),
    title: z.string(),
    scenario: z.string(),
    key: z.string(),
    split: z.string(),
    read: int(),
    steps: z.array(ScenarioStepWire),
    firstChange: z.optional(int()),
    /** Sentences under the table: what was cut, the scenarios seen when none matched. */
    notes: z.array(z.string()),
  }),
]);
export type ToScenario = z.infer<typeof ToScenario>;

const Place = z.object({ step: int(), group: int(), trajectory: int() });

export const FromScenario = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** The table was drawn: its rollout rows, the steps marked changed, and whether Compare is enabled (tests wait on it). */
  z.object({ type: z.literal('rendered'), rows: int(), changed: z.array(int()), compare: z.boolean() }),
  /** Opens a step file in the viewer. */
  z.object({ type: z.literal('open'), step: int() }),
  /** The two rollouts' transcripts side by side in the diff editor. */
  z.object({ type: z.literal('compare'), left: Place, right: Place }),
]);
export type FromScenario = z.infer<typeof FromScenario>;
