/** Per-group numbers of the viewer's indexes, in typed arrays: memory grows with groups, not bytes. */

/** A typed array that grows by doubling. */
export class Column<T extends Float64Array | Uint32Array | Uint8Array> {
  length = 0;
  constructor(
    private data: T,
    private readonly make: (n: number) => T,
  ) {}
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = this.make(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  get(i: number): number {
    return this.data[i]!;
  }
}
export const f64 = () => new Column(new Float64Array(1024), (n) => new Float64Array(n));
export const u32 = () => new Column(new Uint32Array(1024), (n) => new Uint32Array(n));
export const u8 = () => new Column(new Uint8Array(1024), (n) => new Uint8Array(n));
