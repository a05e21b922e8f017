/**
 * A map from names to numbers for millions of entries: the names' bytes in pages of
 * 64 KiB, an open-addressing table of their indexes and one number per name, about 40
 * bytes a name where a Map of strings takes over 100. Nothing is copied while it fills
 * (pages are added), so building one leaves no large garbage. Names are ASCII
 * (normalised domains) of at most 255 characters, given as strings or as a range of
 * bytes (a file read as it is, with no string made per name).
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const PAGE_BITS = 16;
const PAGE_SIZE = 1 << PAGE_BITS;

/** FNV-1a over the name's character codes. */
function hashOf(name: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), FNV_PRIME);
  return hash >>> 0;
}

/** FNV-1a over bytes `start` to `end`: an ASCII name's hashOf. */
function hashOfBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = FNV_OFFSET;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ (bytes[i] as number), FNV_PRIME);
  return hash >>> 0;
}

function isShortAscii(name: string): boolean {
  if (name.length > 255) return false;
  for (let i = 0; i < name.length; i++) if (name.charCodeAt(i) > 0x7f) return false;
  return true;
}

function areShortAscii(bytes: Uint8Array, start: number, end: number): boolean {
  if (end - start > 255) return false;
  for (let i = start; i < end; i++) if ((bytes[i] as number) > 0x7f) return false;
  return true;
}

function slotsFor(names: number): number {
  let count = 16;
  while (count < names * 1.5) count *= 2;
  return count;
}

export class PackedNames {
  private readonly pages: Uint8Array[] = [new Uint8Array(PAGE_SIZE)];
  /** Bytes used in the last page. */
  private used = 0;
  /** Where each name's bytes are: page << 16 | offset. */
  private starts: Uint32Array;
  private lengths: Uint8Array;
  private values: Uint32Array;
  /** 0: empty, else 1 + the index of a name; at most two thirds full. */
  private slots: Uint32Array;
  size = 0;

  /** Room for `capacity` names before it grows. */
  constructor(capacity: number) {
    const room = Math.max(16, capacity);
    this.slots = new Uint32Array(slotsFor(room));
    this.starts = new Uint32Array(room);
    this.lengths = new Uint8Array(room);
    this.values = new Uint32Array(room);
  }

  private equals(index: number, name: string): boolean {
    if (this.lengths[index] !== name.length) return false;
    const start = this.starts[index] as number;
    const page = this.pages[start >>> PAGE_BITS] as Uint8Array;
    const offset = start & (PAGE_SIZE - 1);
    for (let i = 0; i < name.length; i++) if (page[offset + i] !== name.charCodeAt(i)) return false;
    return true;
  }

  private equalsBytes(index: number, bytes: Uint8Array, start: number, end: number): boolean {
    if (this.lengths[index] !== end - start) return false;
    const at = this.starts[index] as number;
    const page = this.pages[at >>> PAGE_BITS] as Uint8Array;
    const offset = (at & (PAGE_SIZE - 1)) - start;
    for (let i = start; i < end; i++) if (page[offset + i] !== bytes[i]) return false;
    return true;
  }

  /** What the slot that holds the name holds (1 + its index), or 0. */
  private heldFor(name: string, hash: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = this.slots[slot] as number;
      if (held === 0 || this.equals(held - 1, name)) return held;
    }
  }

  private heldForBytes(bytes: Uint8Array, start: number, end: number, hash: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = this.slots[slot] as number;
      if (held === 0 || this.equalsBytes(held - 1, bytes, start, end)) return held;
    }
  }

  /** The first empty slot from the hash on. */
  private emptySlot(hash: number): number {
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    return slot;
  }

  /** Twice the room for names: the index arrays copied, the slots laid out again (only past the capacity given). */
  private grow(): void {
    const room = this.values.length * 2;
    const starts = new Uint32Array(room);
    starts.set(this.starts);
    this.starts = starts;
    const lengths = new Uint8Array(room);
    lengths.set(this.lengths);
    this.lengths = lengths;
    const values = new Uint32Array(room);
    values.set(this.values);
    this.values = values;
    this.slots = new Uint32Array(slotsFor(room));
    for (let index = 0; index < this.size; index++) {
      const start = this.starts[index] as number;
      const page = this.pages[start >>> PAGE_BITS] as Uint8Array;
      const offset = start & (PAGE_SIZE - 1);
      this.slots[this.emptySlot(hashOfBytes(page, offset, offset + (this.lengths[index] as number)))] =
        index + 1;
    }
  }

  /** Takes in a new name of `length` bytes (its hash given, its bytes not yet written): where they go (page << 16 | offset). */
  private add(hash: number, length: number, value: number): number {
    if (this.size === this.values.length) this.grow();
    if (this.used + length > PAGE_SIZE) {
      this.pages.push(new Uint8Array(PAGE_SIZE));
      this.used = 0;
    }
    const at = ((this.pages.length - 1) << PAGE_BITS) | this.used;
    this.starts[this.size] = at;
    this.lengths[this.size] = length;
    this.values[this.size] = value;
    this.used += length;
    this.size++;
    this.slots[this.emptySlot(hash)] = this.size;
    return at;
  }

  get(name: string): number | undefined {
    const held = this.heldFor(name, hashOf(name));
    return held === 0 ? undefined : this.values[held - 1];
  }

  /** The number of the name in bytes `start` to `end`. */
  getBytes(bytes: Uint8Array, start: number, end: number): number | undefined {
    const held = this.heldForBytes(bytes, start, end, hashOfBytes(bytes, start, end));
    return held === 0 ? undefined : this.values[held - 1];
  }

  set(name: string, value: number): void {
    const hash = hashOf(name);
    const held = this.heldFor(name, hash);
    if (held !== 0) {
      this.values[held - 1] = value;
      return;
    }
    if (!isShortAscii(name)) throw new RangeError(`not an ASCII name of at most 255 characters: ${name}`);
    const at = this.add(hash, name.length, value);
    const page = this.pages[at >>> PAGE_BITS] as Uint8Array;
    const offset = at & (PAGE_SIZE - 1);
    for (let i = 0; i < name.length; i++) page[offset + i] = name.charCodeAt(i);
  }

  /** Sets the name in bytes `start` to `end` (copied). */
  setBytes(bytes: Uint8Array, start: number, end: number, value: number): void {
    const hash = hashOfBytes(bytes, start, end);
    const held = this.heldForBytes(bytes, start, end, hash);
    if (held !== 0) {
      this.values[held - 1] = value;
      return;
    }
    if (!areShortAscii(bytes, start, end)) {
      throw new RangeError(
        `not an ASCII name of at most 255 characters: ${new TextDecoder().decode(bytes.subarray(start, end))}`,
      );
    }
    const at = this.add(hash, end - start, value);
    const page = this.pages[at >>> PAGE_BITS] as Uint8Array;
    const offset = (at & (PAGE_SIZE - 1)) - start;
    // A loop, not page.set(bytes.subarray(…)): no view object made per name.
    for (let i = start; i < end; i++) page[offset + i] = bytes[i] as number;
  }

  /** Every name with its number, in the order first set. */
  *entries(): Generator<[string, number]> {
    for (let index = 0; index < this.size; index++) {
      const at = this.starts[index] as number;
      const offset = at & (PAGE_SIZE - 1);
      const bytes = (this.pages[at >>> PAGE_BITS] as Uint8Array).subarray(
        offset,
        offset + (this.lengths[index] as number),
      );
      yield [String.fromCharCode(...bytes), this.values[index] as number];
    }
  }
}
