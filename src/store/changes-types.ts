/** The change signal: the repository's contract and rows, implemented in src/store/changes.ts. */

/** The kinds of change every server must take at once (src/store/changes.ts). */
export const CHANGE_TOPICS = ["keys", "overrides", "records", "lists", "account_lists"] as const;

export type ChangeTopic = (typeof CHANGE_TOPICS)[number];

/** The topics whose changes change verdicts: the sum of their counters is the policy version. */
export const POLICY_TOPICS = ["overrides", "lists"] as const satisfies readonly ChangeTopic[];

/** The policy version of a reading of the change counters. */
export function policyVersion(versions: ReadonlyMap<string, number>): number {
  return POLICY_TOPICS.reduce((sum, topic) => sum + (versions.get(topic) ?? 0), 0);
}

/** The change signal: a counter per topic, raised by the store in the transaction of each change of that kind. */
export interface ChangesRepository {
  /** Every topic's counter (a topic never raised is absent). */
  versions(): Promise<Map<string, number>>;
}
