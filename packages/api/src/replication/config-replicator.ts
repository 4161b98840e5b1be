import { COMMAND_VERSION, type Command, type ConfigEntry } from "@cairn/fsm";
import { type JsonValue, readJson, writeJson } from "@cairn/json";
import { CONFIG_ENTRY_KINDS } from "../config-entries/kinds.js";
import { type ConfigEntryBody, parseConfigEntry } from "../config-entries/parse.js";
import { HttpError } from "../http/errors.js";
import type { StateReader } from "../state-reader.js";
import type { ApplyLimiter } from "./limiter.js";
import type { PrimaryFetch } from "./primary.js";
import { ReplicationWrites } from "./writes.js";

export interface ConfigReplicationOptions {
  readonly store: StateReader;
  readonly apply: (command: Command) => Promise<unknown>;
  readonly primary: PrimaryFetch;
  readonly limiter: ApplyLimiter;
}

export interface ConfigReplicationOutcome {
  /** The highest X-Consul-Index among the primary's kind lists. */
  readonly index: number;
  readonly updates: number;
  readonly skipped: readonly string[];
}

/**
 * Kinds in the order entries can be stored: defaults before the chain entries that depend on a protocol,
 * resolvers before splitters and routers. Deletions run the other way round.
 */
const ORDER = [
  "proxy-defaults",
  "service-defaults",
  "service-resolver",
  "service-splitter",
  "service-router",
  "service-intentions",
  "ingress-gateway",
  "terminating-gateway",
].filter((k) => CONFIG_ENTRY_KINDS.has(k));

const v = COMMAND_VERSION;

/** The entry as stored, less what differs between datacenters (indexes, the namespace it is keyed by). */
function normal(raw: JsonValue): { ns: string; body: ConfigEntryBody; key: string } {
  const entry = parseConfigEntry(raw);
  const { Namespace, ...body } = entry;
  return { ns: Namespace || "default", body, key: writeJson(body) };
}

const asJson = (e: ConfigEntry): JsonValue => readJson(writeJson(e));
const entryKey = (kind: string, ns: string, name: string) => `${kind}\u0000${ns}\u0000${name}`;

/**
 * One pass of config entry replication (Consul 1.6+): every kind's entries in the secondary become the
 * primary's. An entry that does not validate here is left out and reported; each entry is one command.
 */
export async function replicateConfigEntries(o: ConfigReplicationOptions): Promise<ConfigReplicationOutcome> {
  const writes = new ReplicationWrites(o.limiter, o.apply);
  const { apply, skipped } = writes;
  let index = 0;
  const wanted = new Set<string>();
  for (const kind of ORDER) {
    const list = await o.primary(`/v1/config/${kind}?ns=*`);
    index = Math.max(index, list.index);
    const items = Array.isArray(list.body) ? list.body : [];
    for (const raw of items) {
      let remote: ReturnType<typeof normal>;
      try {
        remote = normal(raw);
      } catch (err) {
        if (!(err instanceof HttpError)) throw err;
        const name = typeof raw === "object" && raw && !Array.isArray(raw) ? String(raw.Name) : "?";
        skipped.push(`config entry ${kind}/${name}: ${err.message}`);
        // Neither applied nor deleted: what this datacenter has stays until the primary's entry is valid.
        wanted.add(
          entryKey(
            kind,
            typeof raw === "object" && raw && !Array.isArray(raw)
              ? String(raw.Namespace ?? "default")
              : "default",
            name,
          ),
        );
        continue;
      }
      const name = remote.body.Name;
      wanted.add(entryKey(kind, remote.ns, name));
      const local = o.store.view().configEntry(kind, name, remote.ns).value;
      if (local !== undefined && normal(asJson(local)).key === remote.key) continue;
      await apply(
        { v, type: "config-entry.set", ns: remote.ns, entry: remote.body },
        `config entry ${kind}/${name}`,
      );
    }
  }
  for (const kind of [...ORDER].reverse()) {
    for (const local of o.store.view().configEntries(kind, "*").value) {
      if (wanted.has(entryKey(kind, local.Namespace, local.Name))) continue;
      await apply(
        { v, type: "config-entry.delete", ns: local.Namespace, kind, name: local.Name },
        `config entry ${kind}/${local.Name}`,
      );
    }
  }
  return { index, updates: writes.updates, skipped };
}
