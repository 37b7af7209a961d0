import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { z } from 'zod';
import { swapValue, valueSwap } from '../fuzz/files';
import { check, fuzz, named } from '../fuzz/helpers';

/**
 * A cheap yes/no check must agree with its schema on every value: on `sample` with each field
 * absent, null and of every other kind in `others`, and on `runs` samples with one value swapped
 * or removed anywhere (seeded).
 */
export function agreesWithSchema(
  what: string,
  fast: (v: unknown) => boolean,
  schema: z.ZodType,
  sample: Record<string, unknown>,
  { seed, runs, others }: { seed: number; runs: number; others: readonly unknown[] },
): void {
  it(`on each ${what} field absent, null and of every other kind`, () => {
    for (const key of Object.keys(sample)) {
      for (const v of others) {
        const value: Record<string, unknown> = { ...sample, [key]: v };
        if (v === undefined) delete value[key];
        assert.equal(fast(value), schema.safeParse(value).success, `${key} = ${JSON.stringify(v)}`);
      }
    }
    assert.equal(fast(sample), true, 'the sample itself');
  });

  const b = fuzz(seed, runs);
  it(named(`on ${what}s with one value swapped or removed`, b), () => {
    check(
      fc.property(valueSwap, (swap) => {
        const { value } = swapValue(sample, swap);
        assert.equal(fast(value), schema.safeParse(value).success, JSON.stringify(value));
      }),
      b,
    );
  });
}
