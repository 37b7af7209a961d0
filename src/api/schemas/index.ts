export * from './common';
export * from './feedback';
export * from './calls';
export * from './threads';
export * from './models';
