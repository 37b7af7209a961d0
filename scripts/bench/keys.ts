export const BENCH_KEY = 'bench-key-0123456789';
