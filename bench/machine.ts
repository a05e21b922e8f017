/** The machine line every benchmark prints with its figures. */
import { cpus } from "node:os";

export function describeMachine(loadBefore: number): string {
  const cpu = cpus();
  return (
    `Node ${process.version}, ${cpu[0]?.model ?? "unknown CPU"}, ${cpu.length} cores (${process.platform}/${process.arch}),` +
    ` load average ${loadBefore.toFixed(2)} at the start`
  );
}
