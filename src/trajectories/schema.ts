/**
 * The JSON Schema of trajectory files, generated from the zod schemas so editing help and upload
 * validation never disagree. esbuild.js writes it to dist/trajectories.schema.json at build time;
 * `jsonValidation` in package.json applies it to `*.trajectories.json`.
 */
import { z } from 'zod';
import { GroupException, isBareTrajectory, Trajectory, TrajectoryGroup } from '../api/schemas/models';

const has = (v: object, key: string) => Object.prototype.hasOwnProperty.call(v, key);
const notBare = (g: object) => !isBareTrajectory(g);

/**
 * A group as a file holds it: ART leaves `trajectories` out of an empty group, but an object with
 * a trajectory's content and no `trajectories` is a bare trajectory, not a group (the reader says so).
 */
export const FileGroup = TrajectoryGroup.refine((g) => notBare(g), { message: 'a single trajectory, not a group' });

/** A line of a `.jsonl` file: a group, and not a whole `{split, trajectory_groups}` document. */
export const JsonlGroup = FileGroup.refine((g) => has(g, 'trajectories') || !has(g, 'trajectory_groups'), { message: 'a whole request document, not a group' });

/**
 * A file that is one group says so by a member of its own: `trajectories`, or `exceptions` for a
 * compact empty group. Written as two objects with a required key (not a refinement), so the JSON
 * Schema says it too, and a `{trajectory_groups}` document is never read as one group.
 */
const SingleGroup = z.union([
  TrajectoryGroup.extend({ trajectories: z.array(Trajectory).nullable(), trajectory_groups: z.never().optional() }),
  TrajectoryGroup.extend({ exceptions: z.array(GroupException).nullable(), trajectory_groups: z.never().optional() }).refine(notBare, { message: 'a single trajectory, not a group' }),
]);

/** The three accepted shapes of a .json trajectory file. */
export const TrajectoryFile = z.union([
  z.looseObject({ split: z.string().min(1).nullable().optional(), trajectory_groups: z.array(FileGroup) }),
  z.array(FileGroup),
  SingleGroup,
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
