/**
 * The UploadGate (docs/jobs.md "Limits"): at most JOB_UPLOADS_PER_ACCOUNT uploads and two
 * downloads per owner at once, each owner on its own; the spool holds at most
 * JOB_SPOOL_MAX_BYTES over every upload, given back when an upload is released.
 */
import { describe, expect, it } from "vitest";
import { UploadGate } from "../../../src/service/jobs/upload-gate.js";

describe("UploadGate", () => {
  it("lets each owner have its uploads at once, and one more only once one ends", () => {
    const gate = new UploadGate({ uploadsPerOwner: 2, spoolMaxBytes: 1000 });
    const first = gate.enterUpload("account:a");
    const second = gate.enterUpload("account:a");
    expect(first && second).toBeTruthy();
    expect(gate.enterUpload("account:a")).toBeUndefined();
    expect(gate.enterUpload("key:b")).toBeDefined();
    first?.release();
    first?.release();
    expect(gate.enterUpload("account:a")).toBeDefined();
    expect(gate.enterUpload("account:a")).toBeUndefined();
  });

  it("holds the spool's bytes over every upload and gives an upload's back at its release", () => {
    const gate = new UploadGate({ uploadsPerOwner: 5, spoolMaxBytes: 1000 });
    const one = gate.enterUpload("account:a");
    const two = gate.enterUpload("account:b");
    expect(one?.spool.take(600)).toBe(true);
    expect(two?.spool.take(500)).toBe(false);
    expect(two?.spool.take(400)).toBe(true);
    expect(gate.spooledBytes).toBe(1000);
    one?.release();
    expect(gate.spooledBytes).toBe(400);
    expect(two?.spool.take(600)).toBe(true);
  });

  it("lets an owner stream two downloads at once", () => {
    const gate = new UploadGate({ uploadsPerOwner: 2, spoolMaxBytes: 1000 });
    const first = gate.enterDownload("account:a");
    expect(gate.enterDownload("account:a")).toBeDefined();
    expect(gate.enterDownload("account:a")).toBeUndefined();
    expect(gate.enterDownload("account:b")).toBeDefined();
    first?.();
    expect(gate.enterDownload("account:a")).toBeDefined();
  });
});
