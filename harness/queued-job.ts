/** A list job queued straight in the store, and a checker that answers from its cache, for the job runner's tests. */
import type { Checker } from "../src/service/checking/checker.js";
import type { Store } from "../src/store/index.js";
import { sampleRecord, sampleStatus } from "./sample-record.js";

/** A key's job of `items` addresses (`u0@example.com`, …), stored in batches of `batchSize`, queued. */
export async function queuedJob(
  store: Pick<Store, "jobs">,
  items: number,
  batchSize = items,
): Promise<string> {
  const id = await store.jobs.startUpload({ keyId: "k", header: '["input"]', layout: "{}", now: new Date() });
  for (let first = 0; first < items; first += batchSize) {
    const size = Math.min(batchSize, items - first);
    const inputs = Array.from({ length: size }, (_, i) => ({
      input: `u${first + i}@example.com`,
      row: "{}",
    }));
    await store.jobs.addBatch(id, first, inputs);
  }
  await store.jobs.queueJob(id, items, new Date());
  return id;
}

/** A checker whose every answer is the sample record, from its cache. */
export const cachedChecker: Pick<Checker, "check"> = {
  check: async () => {
    const record = sampleRecord();
    return { record, status: sampleStatus(record), cache: "hit" };
  },
};
