/**
 * Small in-memory lists for unit tests: curated file texts plus generated entries, going
 * through the same parsers as the bundled data.
 */
import type { DomainLists } from "../../src/core/list-interfaces.js";
import { parseCuratedLists } from "../../src/data/curated.js";
import { formatGeneratedFile, type GeneratedEntry, parseGeneratedFile } from "../../src/data/generated.js";
import { createDomainLists } from "../../src/data/read-domain-lists.js";

export interface TestListData {
  /** Curated file name → content; files not given are empty. */
  curated?: Record<string, string>;
  disposable?: readonly GeneratedEntry[];
  forwarders?: readonly GeneratedEntry[];
  roles?: readonly string[];
}

function generated(entries: readonly GeneratedEntry[]) {
  return parseGeneratedFile(formatGeneratedFile(["test"], "test list", entries), "test");
}

export function listsFrom(data: TestListData): DomainLists {
  return createDomainLists({
    curated: parseCuratedLists((file) => data.curated?.[file] ?? ""),
    disposable: generated(data.disposable ?? []),
    forwarders: generated(data.forwarders ?? []),
    roleLocalParts: data.roles ?? [],
  });
}

/** A disposable entry listed by one package. */
export function listed(domain: string): GeneratedEntry {
  return { domain, sources: ["mailchecker"] };
}
