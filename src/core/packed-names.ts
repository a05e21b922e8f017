/**
 * A map from names to numbers for millions of entries: the names' bytes in pages of
 * 64 KiB, an open-addressing table of their indexes and one number per name, about 40
 * bytes a name where a Map of strings takes over 100. Nothing is copied while it fills
 * (pages are added), so building one leaves no large garbage. Names are ASCII
 * (normalised domains) of at most 255 characters.
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

function isShortAscii(name: string): boolean {
  if (name.length > 255) return false;
  for (let i = 0; i < name.length; i++) if (name.charCodeAt(i) > 0x7f) return false;
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

  /** The slot that holds the name, or the empty one where it would go. */
  private slotOf(name: string): number {
    const mask = this.slots.length - 1;
    for (let slot = hashOf(name) & mask; ; slot = (slot + 1) & mask) {
      const held = this.slots[slot] as number;
      if (held === 0 || this.equals(held - 1, name)) return slot;
    }
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
    const mask = this.slots.length - 1;
    for (let index = 0; index < this.size; index++) {
      const start = this.starts[index] as number;
      const page = this.pages[start >>> PAGE_BITS] as Uint8Array;
      const offset = start & (PAGE_SIZE - 1);
      let hash = FNV_OFFSET;
      for (let i = 0; i < (this.lengths[index] as number); i++) {
        hash = Math.imul(hash ^ (page[offset + i] as number), FNV_PRIME);
      }
      let slot = (hash >>> 0) & mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
      this.slots[slot] = index + 1;
    }
  }

  get(name: string): number | undefined {
    const held = this.slots[this.slotOf(name)] as number;
    return held === 0 ? undefined : this.values[held - 1];
  }

  set(name: string, value: number): void {
    let slot = this.slotOf(name);
    const held = this.slots[slot] as number;
    if (held !== 0) {
      this.values[held - 1] = value;
      return;
    }
    if (!isShortAscii(name)) throw new RangeError(`not an ASCII name of at most 255 characters: ${name}`);
    if (this.size === this.values.length) {
      this.grow();
      slot = this.slotOf(name);
    }
    if (this.used + name.length > PAGE_SIZE) {
      this.pages.push(new Uint8Array(PAGE_SIZE));
      this.used = 0;
    }
    const page = this.pages[this.pages.length - 1] as Uint8Array;
    for (let i = 0; i < name.length; i++) page[this.used + i] = name.charCodeAt(i);
    this.starts[this.size] = ((this.pages.length - 1) << PAGE_BITS) | this.used;
    this.lengths[this.size] = name.length;
    this.values[this.size] = value;
    this.used += name.length;
    this.size++;
    this.slots[slot] = this.size;
  }
}
