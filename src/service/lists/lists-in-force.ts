/**
 * The lists in force in this process: the bundled lists with the accepted versions of
 * synced sources merged in (src/data/synced-lists.ts). Loaded at start and again when
 * the change signal says a version or the policy changed (accepted, rolled back or removed) (only the sources of the
 * database's policy are in force, docs/data.md "Who sets the policy"); the new lists are
 * built beside the old ones (in slices that yield to checks) and swapped in at once (only the sources in force are read),
 * raising `version` so that the record cache decides its answers again. A failed load
 * keeps the lists in force.
 */
import { BundledDomainLists } from "../../core/domain-list-lookups.js";
import type {
  ChangingDomainLists,
  DomainFacts,
  DomainLists,
  DomainMatch,
  HostFacts,
  MxProvider,
} from "../../core/list-interfaces.js";
import type { BundledListData } from "../../data/read-domain-lists.js";
import { withSyncedSources } from "../../data/synced-lists.js";
import type { Store } from "../../store/index.js";
import { OneAtATime } from "../shared/one-at-a-time.js";

/** Whether the database's list policy names exactly these sources (LIST_SOURCES' names). */
export function policyIs(policy: readonly string[] | undefined, sources: readonly string[]): boolean {
  return policy?.join(",") === [...sources].sort().join(",");
}

/** A synced source in force, for metrics and logs. */
export interface SourceInForce {
  source: string;
  entries: number;
  acceptedAt: Date;
}

export interface ListsInForceOptions {
  bundled: BundledListData;
  store: Pick<Store, "lists">;
  /** The sources of this process's LIST_SOURCES: in force until a sync stores the policy. */
  sources: readonly string[];
  /** A load that failed (the lists in force stay). */
  onError?: (error: unknown) => void;
  /** The database's policy differs from LIST_SOURCES (told once per policy): it decides all the same. */
  onPolicyDiffers?: (configured: readonly string[], policy: readonly string[]) => void;
}

export class ListsInForce implements ChangingDomainLists {
  private lists: DomainLists;
  /** The versions in force, `source hash` each, as last loaded. */
  private loadedVersions = "";
  /** The policy last told to differ from LIST_SOURCES. */
  private toldPolicy: string | undefined;
  private readonly loading: OneAtATime;
  version = 0;
  loaded = false;
  readonly ready: Promise<void>;
  /** The synced sources in force. */
  sources: readonly SourceInForce[] = [];

  constructor(private readonly options: ListsInForceOptions) {
    this.lists = new BundledDomainLists(options.bundled);
    this.loading = new OneAtATime(() => this.load(), options.onError);
    this.ready = this.loading.run().finally(() => {
      this.loaded = true;
    });
  }

  reloadAfterChange(): Promise<void> {
    return this.loading.again();
  }

  /** Reads only the versions in force, and their entries only when one changed, one source at a time. */
  private async load(): Promise<void> {
    const { store } = this.options;
    const sources = await this.sourcesInForce();
    const versions = await store.lists.versionsInForce(sources);
    const loaded = versions.map((v) => `${v.source} ${v.hash}`).join("\n");
    if (loaded === this.loadedVersions) return;
    const data = await withSyncedSources(
      this.options.bundled,
      versions.map(({ source, entryCount }) => ({
        source,
        entryCount,
        entries: () => store.lists.currentEntries(source),
      })),
    );
    this.lists = new BundledDomainLists(data);
    this.sources = versions.map((v) => ({
      source: v.source,
      entries: v.entryCount,
      acceptedAt: v.acceptedAt,
    }));
    this.loadedVersions = loaded;
    this.version++;
  }

  /** The policy's sources, or LIST_SOURCES before any sync set one; a difference is told. */
  private async sourcesInForce(): Promise<readonly string[]> {
    const configured = this.options.sources;
    const policy = (await this.options.store.lists.policy())?.sources;
    if (policy === undefined) return configured;
    const named = policy.join(",");
    if (!policyIs(policy, configured) && named !== this.toldPolicy) {
      this.options.onPolicyDiffers?.(configured, policy);
      this.toldPolicy = named;
    }
    return policy;
  }

  get popular(): readonly string[] {
    return this.lists.popular;
  }

  get lookAlikeTargets(): readonly string[] {
    return this.lists.lookAlikeTargets;
  }

  domainFacts(domain: string, baseDomain: string): DomainFacts {
    return this.lists.domainFacts(domain, baseDomain);
  }

  hostFacts(host: string): HostFacts {
    return this.lists.hostFacts(host);
  }

  disposable(domain: string, baseDomain: string): DomainMatch | undefined {
    return this.lists.disposable(domain, baseDomain);
  }

  mxProvider(mxHost: string): MxProvider | undefined {
    return this.lists.mxProvider(mxHost);
  }

  parkingHost(host: string): string | undefined {
    return this.lists.parkingHost(host);
  }

  parkingAddress(ip: string): string | undefined {
    return this.lists.parkingAddress(ip);
  }

  disposableInfrastructure(host: string): string | undefined {
    return this.lists.disposableInfrastructure(host);
  }

  isRoleLocalPart(localPart: string): boolean {
    return this.lists.isRoleLocalPart(localPart);
  }

  listedSince(entry: string, source: string): Date | null {
    return this.lists.listedSince(entry, source);
  }
}
