/**
 * A seeded pseudo-random source (mulberry32) and sampling on top of it, so that the
 * benchmarks and the detection evaluation pick the same domains on every run.
 */
export type Random = () => number;

/** Uniform numbers in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** An integer in [0, below). */
export function randomIndex(random: Random, below: number): number {
  return Math.floor(random() * below);
}

/** `count` distinct items (all of them when there are fewer), in random order; `items` is left alone. */
export function sample<T>(items: readonly T[], count: number, random: Random): T[] {
  const pool = [...items];
  const size = Math.min(count, pool.length);
  for (let i = 0; i < size; i++) {
    const j = i + randomIndex(random, pool.length - i);
    [pool[i], pool[j]] = [pool[j] as T, pool[i] as T];
  }
  return pool.slice(0, size);
}
