/** Named locks: the repository's contract and rows, implemented in src/store/locks-repository.ts. */

/** Named locks that expire (src/store/locks-repository.ts): one instance at a time does a job. */
export interface LocksRepository {
  /** Takes the lock until `until` unless another holder has it unexpired at `now`. */
  tryLock(name: string, holder: string, now: Date, until: Date): Promise<boolean>;
  unlock(name: string, holder: string): Promise<void>;
}
