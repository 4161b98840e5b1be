import type { ChainEntries, ConfigEntryFields } from "@cairn/discovery";
import type { Read, StateView } from "@cairn/fsm";

/** Where proxy-defaults live: one `global` entry in the default namespace. */
const GLOBAL_NS = "default";

/**
 * The compiler's entry lookups over a state view. Every lookup is kept, so a blocking discovery-chain read
 * watches exactly the entries the chain consulted (present or not) and reports their table's index.
 */
export function chainEntriesOf(view: StateView): { entries: ChainEntries; reads: Read<unknown>[] } {
  const reads: Read<unknown>[] = [];
  const lookup =
    (kind: string) =>
    (name: string, ns: string): ConfigEntryFields | undefined => {
      const read = view.configEntry(kind, name, ns);
      reads.push(read);
      return read.value;
    };
  return {
    reads,
    entries: {
      resolver: lookup("service-resolver"),
      splitter: lookup("service-splitter"),
      router: lookup("service-router"),
      serviceDefaults: lookup("service-defaults"),
      proxyDefaults: () => lookup("proxy-defaults")("global", GLOBAL_NS),
    },
  };
}
