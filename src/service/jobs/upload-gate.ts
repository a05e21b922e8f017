/**
 * What a server lets list-job traffic hold at once (docs/jobs.md "Limits"), per process:
 * uploads per owner (JOB_UPLOADS_PER_ACCOUNT), downloads per owner (DOWNLOADS_PER_OWNER),
 * and the bytes of every upload being spooled (JOB_SPOOL_MAX_BYTES). Each `enter…`
 * answers a release (call it once, however the transfer ends) or undefined when full.
 */

/** Results downloads one owner may stream at once. */
export const DOWNLOADS_PER_OWNER = 2;

export interface UploadGateLimits {
  uploadsPerOwner: number;
  spoolMaxBytes: number;
  downloadsPerOwner?: number;
}

/** Bytes an upload holds in the spool: taken as they arrive, all given back at its release. */
export interface SpoolBytes {
  /** Takes `bytes` more; false (nothing taken) when the spool cannot hold them. */
  take(bytes: number): boolean;
}

export class UploadGate {
  private readonly uploads = new Map<string, number>();
  private readonly downloads = new Map<string, number>();
  private spooled = 0;

  constructor(private readonly limits: UploadGateLimits) {}

  /** An upload of `owner` begins: its spool bytes and its release; undefined when the owner has its uploads running. */
  enterUpload(owner: string): { spool: SpoolBytes; release: () => void } | undefined {
    const leave = this.enter(this.uploads, owner, this.limits.uploadsPerOwner);
    if (!leave) return undefined;
    let held = 0;
    const spool: SpoolBytes = {
      take: (bytes) => {
        if (this.spooled + bytes > this.limits.spoolMaxBytes) return false;
        this.spooled += bytes;
        held += bytes;
        return true;
      },
    };
    const release = () => {
      this.spooled -= held;
      held = 0;
      leave();
    };
    return { spool, release };
  }

  /** A download of `owner` begins: its release; undefined when the owner has its downloads running. */
  enterDownload(owner: string): (() => void) | undefined {
    return this.enter(this.downloads, owner, this.limits.downloadsPerOwner ?? DOWNLOADS_PER_OWNER);
  }

  /** Bytes spooled now, by every upload. */
  get spooledBytes(): number {
    return this.spooled;
  }

  private enter(counts: Map<string, number>, owner: string, most: number): (() => void) | undefined {
    const now = counts.get(owner) ?? 0;
    if (now >= most) return undefined;
    counts.set(owner, now + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const after = (counts.get(owner) ?? 1) - 1;
      if (after <= 0) counts.delete(owner);
      else counts.set(owner, after);
    };
  }
}
