/**
 * The JSON Schema of trajectory files, generated from the zod schemas so editing help and upload
 * validation never disagree. esbuild.js writes it to dist/trajectories.schema.json at build time;
 * `jsonValidation` in package.json applies it to `*.trajectories.json`.
 */
import { z } from 'zod';
import { TrajectoryGroup } from '../api/schemas/models';

const has = (v: object, key: string) => Object.prototype.hasOwnProperty.call(v, key);

/**
 * A group as a file holds it: ART leaves `trajectories` out of an empty group, but an object with
 * a trajectory's content and no `trajectories` is a bare trajectory, not a group (the reader says so).
 */
export const FileGroup = TrajectoryGroup.refine((g) => has(g, 'trajectories') || !(has(g, 'messages_and_choices') || has(g, 'exchanges')), {
  message: 'a single trajectory, not a group',
});

/** A line of a `.jsonl` file: a group, and not a whole `{split, trajectory_groups}` document. */
export const JsonlGroup = FileGroup.refine((g) => has(g, 'trajectories') || !has(g, 'trajectory_groups'), { message: 'a whole request document, not a group' });

/** The three accepted shapes of a .json trajectory file. A file that is one group says so by its members. */
export const TrajectoryFile = z.union([
  z.looseObject({ split: z.string().min(1).nullable().optional(), trajectory_groups: z.array(FileGroup) }),
  z.array(FileGroup),
  FileGroup.refine((g) => !has(g, 'trajectory_groups') && ['trajectories', 'exceptions', 'messages_and_choices', 'exchanges'].some((k) => has(g, k)), {
    message: 'not a trajectory file',
  }),
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
