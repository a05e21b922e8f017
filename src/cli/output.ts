/**
 * Writing a long output to stdout: each write waits while the stream's buffer is full
 * (so memory stays flat when the reader is slower than the checks), and a reader that
 * went away (EPIPE: `mailrisk check - | head -1`) closes the output quietly instead of
 * crashing the process with an unhandled error.
 */
export class Output {
  private closedBy: NodeJS.ErrnoException | undefined;
  private readonly onError = (error: NodeJS.ErrnoException) => {
    this.closedBy ??= error;
    this.waking?.();
  };
  private waking: (() => void) | undefined;

  constructor(private readonly stream: NodeJS.WritableStream) {
    stream.on("error", this.onError);
  }

  /** True once the stream failed; the run should stop. */
  get closed(): boolean {
    return this.closedBy !== undefined;
  }

  /** The failure when it was something else than a reader that went away. */
  get failure(): Error | undefined {
    const error = this.closedBy;
    return error === undefined || error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED"
      ? undefined
      : error;
  }

  /** Writes `text`; resolves once the stream can take more (or has closed). */
  async write(text: string): Promise<void> {
    if (this.closed) return;
    if (this.stream.write(text)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.stream.off("drain", done);
        this.waking = undefined;
        resolve();
      };
      this.waking = done;
      this.stream.on("drain", done);
    });
  }

  /** Stops listening; a later EPIPE has nobody to crash (nothing is written after this). */
  release(): void {
    this.stream.off("error", this.onError);
    this.stream.on("error", () => undefined);
  }
}
