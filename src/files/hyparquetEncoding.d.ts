// hyparquet's run-length/bit-packed decoder (see hyparquet.d.ts for why these lines exist):
// parquetPrefix.ts reads a page's definition levels with it.
declare module 'hyparquet/src/encoding.js' {
  export * from 'hyparquet/types/encoding';
}
