/**
 * @module gateway/generations
 * Generation counters: a fill that began before a purge of its key (or of a tag it carries) is not stored.
 */

/**
 * One global sequence stamped on purges; a fill remembers the sequence at its start and,
 * when it finishes, checks whether its key or any of its tags was purged after that. The
 * history is only needed while some fill is running, so it is dropped when none is, which
 * keeps memory bounded however many keys get purged.
 */
export class Generations {
  #seq = 0;
  #active = 0;
  readonly #keys = new Map<string, number>();
  readonly #tags = new Map<string, number>();

  /** Marks the start of a fill; pass the result to {@link purgedSince} and call {@link end} once. */
  begin(): number {
    this.#active++;
    return this.#seq;
  }

  end(): void {
    if (--this.#active === 0) {
      this.#keys.clear();
      this.#tags.clear();
    }
  }

  purgeKey(key: string): void {
    if (this.#active > 0) this.#keys.set(key, ++this.#seq);
  }

  purgeTag(tag: string): void {
    if (this.#active > 0) this.#tags.set(tag, ++this.#seq);
  }

  /** True when `key` or one of `tags` was purged after the fill that began at `seq`. */
  purgedSince(key: string, tags: readonly string[], seq: number): boolean {
    if ((this.#keys.get(key) ?? -1) > seq) return true;
    for (const t of tags) if ((this.#tags.get(t) ?? -1) > seq) return true;
    return false;
  }
}
