// A bounded in-memory cache of small immutable byte strings, least recently used out first. Chute keeps the bytes of
// small stored files here (keyed by storage key, which never names other bytes), so that serving a small file costs
// no file system or S3 round trip.

export class ByteCache {
  private readonly entries = new Map<string, Buffer>();
  private total = 0;

  /**
   * @param maxEntryBytes the largest value kept
   * @param maxTotalBytes what all values together may hold
   */
  constructor(
    readonly maxEntryBytes: number,
    readonly maxTotalBytes: number,
  ) {}

  get(key: string): Buffer | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** The value under `key` without counting it as used (a look before the get() that serves it). */
  peek(key: string): Buffer | undefined {
    return this.entries.get(key);
  }

  /** Keeps `value` unless it is larger than maxEntryBytes; older values go to make room. */
  set(key: string, value: Buffer): void {
    if (value.length > this.maxEntryBytes) return;
    this.delete(key);
    this.entries.set(key, value);
    this.total += value.length;
    for (const [oldKey, old] of this.entries) {
      if (this.total <= this.maxTotalBytes) break;
      this.entries.delete(oldKey);
      this.total -= old.length;
    }
  }

  delete(key: string): void {
    const value = this.entries.get(key);
    if (value === undefined) return;
    this.entries.delete(key);
    this.total -= value.length;
  }

  /** Bytes held now. */
  get size(): number {
    return this.total;
  }
}
