// The demo's random numbers: mulberry32, tiny and good enough for demo data, and the same numbers
// for the same seed every time (the demo workspace's files and the test fixtures built from it are
// deterministic). Used by scripts/demo-art-history.js, test/fixtures/art/demoSteps.ts and
// test/fixtures/generate-demo.ts.
//
//   const { mulberry32 } = require('./demo-prng');
//   const next = mulberry32(7); next() // -> a number in [0, 1)
'use strict';

/** @param {number} seed @returns {() => number} */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

module.exports = { mulberry32 };
