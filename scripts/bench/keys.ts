export const BENCH_KEY = 'bench-key-0123456789';
/** The 30 metric names of the sink's `bench30` model (the training dashboard's bench). */
export const METRICS30 = Array.from({ length: 30 }, (_, k) => `${['train', 'val', 'loss', 'data', 'time'][k % 5]}/metric_${String(k).padStart(2, '0')}`);
