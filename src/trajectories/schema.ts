/**
 * The JSON Schema of trajectory files, generated from the zod schemas so editing help and upload
 * validation never disagree. esbuild.js writes it to dist/trajectories.schema.json at build time;
 * `jsonValidation` in package.json applies it to `*.trajectories.json`.
 */
import { z } from 'zod';
import { TrajectoryGroup } from '../api/schemas/models';

/** The three accepted shapes of a .json trajectory file. */
export const TrajectoryFile = z.union([
  z.looseObject({ split: z.string().min(1).nullable().optional(), trajectory_groups: z.array(TrajectoryGroup) }),
  z.array(TrajectoryGroup),
  TrajectoryGroup,
]);

export function trajectoryFileJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(TrajectoryFile, { target: 'draft-7', unrepresentable: 'any', io: 'input' }) as Record<string, unknown>;
  return {
    ...schema,
    title: 'svc trajectory file',
    description:
      'Trajectories to log to a model with "svc: Upload Trajectories": { split?, trajectory_groups }, an array of groups, or one group { trajectories }.',
  };
}
