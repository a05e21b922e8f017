/**
 * Who sees a list job (docs/jobs.md): the key that made it, every key of its account,
 * and the operator; another account's key, or a key without an account, gets
 * `unknown_job`, as for an id that never was.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { openTestStore, type TestStore } from "../../harness/databases.js";
import { type JobOwner, listJobs, OPERATOR, showJob } from "../../src/operator/jobs.js";

const NOW = new Date("2026-11-26T12:00:00Z");
let db: TestStore;

beforeEach(async () => {
  db = await openTestStore("sqlite");
});
afterEach(() => db.cleanup());

async function accountWithTwoKeys(email: string) {
  const { store } = db;
  const { account, key } = await store.accounts.createAccount({
    email,
    passwordHash: null,
    role: "member",
    plan: "free",
    now: NOW,
  });
  const second = await store.keys.createKey({ plan: "free", name: null, now: NOW, accountId: account.id });
  return { accountId: account.id, first: key.id, second: second.key.id };
}

it("shows a job to every key of its account and to the operator, and to nobody else", async () => {
  const { store } = db;
  const ann = await accountWithTwoKeys("ann@example.com");
  const bob = await accountWithTwoKeys("bob@example.com");
  const loose = (await store.keys.createKey({ plan: "free", name: null, now: NOW })).key.id;
  const id = await store.jobs.startUpload({ keyId: ann.first, header: "[]", layout: "{}", now: NOW });
  await store.jobs.queueJob(id, 0, NOW);

  // Any key of Ann's account (or her console) asks as her account.
  const annAccount: JobOwner = { kind: "account", id: ann.accountId };
  expect((await showJob(store, annAccount, id)).id).toBe(id);
  expect((await listJobs(store, annAccount)).jobs.map((job) => job.id)).toEqual([id]);
  expect((await listJobs(store, OPERATOR)).jobs.map((job) => job.id)).toEqual([id]);
  const strangers: JobOwner[] = [
    { kind: "account", id: bob.accountId },
    { kind: "key", id: loose },
    // A key of the account does not ask as a key of its own.
    { kind: "key", id: ann.first },
  ];
  for (const stranger of strangers) {
    await expect(showJob(store, stranger, id)).rejects.toMatchObject({ code: "unknown_job" });
    expect((await listJobs(store, stranger)).jobs).toEqual([]);
  }
});
