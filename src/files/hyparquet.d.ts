// hyparquet publishes its page-level reader as `hyparquet/src/*.js` (package.json "exports"), with
// types under types/. This project resolves modules the Node 10 way, which does not read
// "exports": these lines point TypeScript at those types. parquet.ts reads page by page with them.
declare module 'hyparquet/src/column.js' {
  export * from 'hyparquet/types/column';
}
declare module 'hyparquet/src/convert.js' {
  export * from 'hyparquet/types/convert';
}
declare module 'hyparquet/src/schema.js' {
  export * from 'hyparquet/types/schema';
}
declare module 'hyparquet/src/snappy.js' {
  export * from 'hyparquet/types/snappy';
}
