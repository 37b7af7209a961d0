/**
 * Client-generated feedback ids that survive a failed attempt: the same feedback (same project,
 * ref, type, payload and creator) sent again after a failure reuses the id of the failed attempt,
 * so if that attempt did reach the service, the retry returns the stored row instead of creating
 * a second one. A success forgets the id: sending the same feedback again later is a new row.
 * Pure: no vscode import.
 */
export class RetryIds {
  private readonly pending = new Map<string, string>();

  constructor(
    private readonly newId: () => string,
    private readonly max = 100,
  ) {}

  /** The id to send for this feedback: the one of an unfinished earlier attempt, or a new one. */
  idFor(key: string): string {
    const existing = this.pending.get(key);
    if (existing) return existing;
    const id = this.newId();
    this.pending.set(key, id);
    while (this.pending.size > this.max) this.pending.delete(this.pending.keys().next().value as string);
    return id;
  }

  /** Uses a caller-given id for this feedback (a scripted retry). */
  remember(key: string, id: string): void {
    this.pending.delete(key);
    this.pending.set(key, id);
  }

  /** The feedback was created: a later identical send is new feedback. */
  succeeded(key: string): void {
    this.pending.delete(key);
  }

  get size(): number {
    return this.pending.size;
  }
}

/** JSON with object keys sorted, so equal content gives equal keys whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .filter((k) => obj[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
