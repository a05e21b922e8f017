/**
 * A map from names to numbers for millions of entries: the names' bytes in one array, an
 * open-addressing table of their indexes and one number per name, about 40 bytes a name
 * where a Map of strings takes over 100. Names are ASCII (normalised domains).
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over the name's character codes. */
function hashOf(name: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), FNV_PRIME);
  return hash >>> 0;
}

export class PackedNames {
  private bytes: Uint8Array;
  private byteCount = 0;
  /** Where each name's bytes start; name i ends where name i + 1 starts. */
  private starts: Uint32Array;
  private values: Uint32Array;
  /** 0: empty, else 1 + the index of a name; at most two thirds full. */
  private slots: Uint32Array;
  size = 0;

  /** Room for `capacity` names before it grows. */
  constructor(capacity: number) {
    const room = Math.max(16, capacity);
    this.slots = new Uint32Array(PackedNames.slotsFor(room));
    this.starts = new Uint32Array(room + 1);
    this.values = new Uint32Array(room);
    this.bytes = new Uint8Array(room * 16);
  }

  private static slotsFor(names: number): number {
    let count = 16;
    while (count < names * 1.5) count *= 2;
    return count;
  }

  /** Twice the room for names: the arrays copied, the slots laid out again. */
  private grow(): void {
    const room = this.values.length * 2;
    const starts = new Uint32Array(room + 1);
    starts.set(this.starts);
    this.starts = starts;
    const values = new Uint32Array(room);
    values.set(this.values);
    this.values = values;
    this.slots = new Uint32Array(PackedNames.slotsFor(room));
    const mask = this.slots.length - 1;
    for (let index = 0; index < this.size; index++) {
      let hash = FNV_OFFSET;
      for (let i = this.starts[index] as number; i < (this.starts[index + 1] as number); i++) {
        hash = Math.imul(hash ^ (this.bytes[i] as number), FNV_PRIME);
      }
      let slot = (hash >>> 0) & mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
      this.slots[slot] = index + 1;
    }
  }

  private equals(index: number, name: string): boolean {
    const start = this.starts[index] as number;
    if ((this.starts[index + 1] as number) - start !== name.length) return false;
    for (let i = 0; i < name.length; i++) if (this.bytes[start + i] !== name.charCodeAt(i)) return false;
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
    if (this.size === this.values.length) {
      this.grow();
      slot = this.slotOf(name);
    }
    if (this.byteCount + name.length > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.byteCount + name.length));
      grown.set(this.bytes);
      this.bytes = grown;
    }
    for (let i = 0; i < name.length; i++) {
      const code = name.charCodeAt(i);
      if (code > 0x7f) throw new RangeError(`not an ASCII name: ${name}`);
      this.bytes[this.byteCount + i] = code;
    }
    this.byteCount += name.length;
    this.values[this.size] = value;
    this.size++;
    this.starts[this.size] = this.byteCount;
    this.slots[slot] = this.size;
  }

  /** Gives back the room left unused by names' bytes, indexes and values (once every name is in). */
  trim(): void {
    this.bytes = this.bytes.slice(0, this.byteCount);
    this.starts = this.starts.slice(0, this.size + 1);
    this.values = this.values.slice(0, this.size);
  }
}
