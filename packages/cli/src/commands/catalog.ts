// `cairn catalog datacenters|nodes|services`, as `consul catalog ...` prints them.
import { boolFlag, stringFlag } from "../args.js";
import { type Command, commandGroup, defineCommand, errorText } from "../command.js";
import { formatTable } from "../format.js";
import { asString, field, isObject, type JsonValue } from "../json.js";
import { keyValues, withRepeatedFlags } from "./catalog-repeated-flags.js";

const datacenters: Command = defineCommand({
  synopsis: "Lists all known datacenters",
  usage: `
Usage: cairn catalog datacenters [options]

  Retrieves the list of all known datacenters, ordered by estimated round-trip time.

      $ cairn catalog datacenters`,
  http: true,
  flags: {},
  async run(_args, { io, client }) {
    try {
      const dcs = await client().json("GET", "/v1/catalog/datacenters", { read: true });
      const list = Array.isArray(dcs) ? dcs.map(asString) : [];
      if (list.length === 0) {
        io.err("No datacenters found");
        return 1;
      }
      for (const dc of list) io.out(dc);
      return 0;
    } catch (err) {
      io.err(`Error listing datacenters: ${errorText(err)}`);
      return 1;
    }
  },
});

const nodes: Command = withRepeatedFlags(["node-meta"], ["detailed"], (repeated) =>
  defineCommand({
    synopsis: "Lists all nodes in the given datacenter",
    usage: `
Usage: cairn catalog nodes [options]

  Retrieves the list of nodes registered in a given datacenter. By default, the
  datacenter of the local agent is queried.

      $ cairn catalog nodes
      $ cairn catalog nodes -service=web
      $ cairn catalog nodes -node-meta=rack=r1 -near=_agent
      $ cairn catalog nodes -detailed`,
    http: true,
    flags: {
      detailed: boolFlag(
        "Output detailed information about the nodes including their addresses and metadata.",
      ),
      near: stringFlag(
        "Node name to sort the node list in ascending order based on estimated round-trip time.",
      ),
      "node-meta": stringFlag(
        "Metadata to filter nodes with the given `key=value` pairs. This flag may be specified multiple times.",
      ),
      service: stringFlag(
        "Service id or name to filter nodes. Only nodes which are providing the given service will be returned.",
      ),
      filter: stringFlag("Filter to use with the request"),
    },
    async run({ values: f, positionals }, { io, client }) {
      if (positionals.length > 0) {
        io.err(`Too many arguments (expected 0, got ${positionals.length})`);
        return 1;
      }
      try {
        const selector = f.service ? "NodeMeta" : "Meta";
        const query = {
          near: f.near || undefined,
          filter:
            withNodeMeta(f.filter, selector, keyValues("node-meta", repeated["node-meta"] ?? [])) ||
            undefined,
        };
        const path = f.service ? `/v1/catalog/service/${encodeURIComponent(f.service)}` : "/v1/catalog/nodes";
        const found = await client().json("GET", path, { read: true, query });
        const list = (Array.isArray(found) ? found : []).filter(isObject).map((n) => ({
          node: asString(field(n, "Node")),
          id: asString(field(n, "ID")),
          address: asString(field(n, "Address")),
          dc: asString(field(n, "Datacenter")),
          tagged: pairs(field(n, "TaggedAddresses")),
          meta: pairs(field(n, "Meta") ?? field(n, "NodeMeta")),
        }));
        if (list.length === 0) {
          io.err("No nodes match the given query - try expanding your search.");
          return 0;
        }
        const header = f.detailed
          ? ["Node", "ID", "Address", "DC", "TaggedAddresses", "Meta"]
          : ["Node", "ID", "Address", "DC"];
        const rows = list.map((n) =>
          f.detailed
            ? [n.node, n.id, n.address, n.dc, n.tagged, n.meta]
            : [n.node, n.id.slice(0, 8), n.address, n.dc],
        );
        io.out(formatTable([header, ...rows]));
        return 0;
      } catch (err) {
        io.err(`Error listing nodes: ${errorText(err)}`);
        return 1;
      }
    },
  }),
);

const services: Command = withRepeatedFlags(["node-meta"], ["tags"], (repeated) =>
  defineCommand({
    synopsis: "Lists all registered services in a datacenter",
    usage: `
Usage: cairn catalog services [options]

  Retrieves the list of services registered in a given datacenter. By default,
  the datacenter of the local agent is queried.

      $ cairn catalog services
      $ cairn catalog services -tags
      $ cairn catalog services -node=web-01
      $ cairn catalog services -node-meta=env=prod`,
    http: true,
    flags: {
      node: stringFlag("Node `id or name` for which to list services."),
      "node-meta": stringFlag(
        "Metadata to filter nodes with the given `key=value` pairs. This flag may be specified multiple times.",
      ),
      tags: boolFlag("Display each service's tags as a comma-separated list beside each service entry."),
      filter: stringFlag("Filter to use with the request"),
    },
    async run({ values: f, positionals }, { io, client }) {
      if (positionals.length > 0) {
        io.err(`Too many arguments (expected 0, got ${positionals.length})`);
        return 1;
      }
      try {
        const meta = Object.entries(keyValues("node-meta", repeated["node-meta"] ?? []));
        if (meta.length > 1) {
          io.err("Only one -node-meta filter is supported by catalog services (catalog nodes takes several)");
          return 1;
        }
        const query = {
          filter: f.filter || undefined,
          "node-meta": meta[0] ? `${meta[0][0]}:${meta[0][1]}` : undefined,
        };
        const byName = new Map<string, Set<string>>();
        if (f.node) {
          const node = await client().json("GET", `/v1/catalog/node/${encodeURIComponent(f.node)}`, {
            read: true,
            query,
          });
          const svcs = isObject(node) ? field(node, "Services") : undefined;
          for (const s of isObject(svcs) ? Object.values(svcs) : []) {
            if (!isObject(s)) continue;
            const tags = byName.get(asString(field(s, "Service"))) ?? new Set<string>();
            for (const t of arrayOf(field(s, "Tags"))) tags.add(t);
            byName.set(asString(field(s, "Service")), tags);
          }
        } else {
          const all = await client().json("GET", "/v1/catalog/services", { read: true, query });
          for (const [name, tags] of Object.entries(isObject(all) ? all : {}))
            byName.set(name, new Set(arrayOf(tags)));
        }
        if (byName.size === 0) {
          io.err("No services match the given query - try expanding your search.");
          return 0;
        }
        const names = [...byName.keys()].sort();
        if (f.tags) io.out(formatTable(names.map((n) => [n, [...(byName.get(n) ?? [])].sort().join(",")])));
        else for (const n of names) io.out(n);
        return 0;
      } catch (err) {
        io.err(`Error listing services: ${errorText(err)}`);
        return 1;
      }
    },
  }),
);

export const catalogCommand: Command = commandGroup(
  "Interact with the catalog",
  `
Usage: cairn catalog <subcommand> [options] [args]

  This command has subcommands for interacting with the catalog: the registry
  of nodes and services of a datacenter.`,
  { datacenters, nodes, services },
);

/** `-node-meta` pairs as a filter expression ANDed with the user's (the HTTP client cannot repeat a parameter). */
function withNodeMeta(filter: string, selector: string, meta: Record<string, string>): string {
  const terms = Object.entries(meta).map(
    ([k, v]) => `${selector}[${JSON.stringify(k)}] == ${JSON.stringify(v)}`,
  );
  if (filter) terms.unshift(`(${filter})`);
  return terms.join(" and ");
}

function pairs(value: JsonValue | undefined): string {
  if (!isObject(value)) return "";
  return Object.keys(value)
    .sort()
    .map((k) => `${k}=${asString(value[k])}`)
    .join(", ");
}

function arrayOf(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.map(asString) : [];
}
