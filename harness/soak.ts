/**
 * The soak (`npm run test:soak`, TEST_SOAK=on) runs the heaviest cases at full size: the
 * 400,000-item job killed mid-way, a 30,000-item job two instances share, a 100,000-line
 * CSV run to done, three downloads of 1,000,000 rows, 5,000 slow-header sockets, 100,000
 * awkward CSV rows through `mailrisk check --csv`, 20,000-item jobs paused by an
 * account's suspension.
 * `npm test` runs the same tests at a size that shows the same property in seconds.
 */
export const SOAK = process.env.TEST_SOAK === "on";

/** `everyRun` in `npm test`, `soak` in `npm run test:soak`. */
export function soakSize<T>(everyRun: T, soak: T): T {
  return SOAK ? soak : everyRun;
}
