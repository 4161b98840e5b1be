// `cairn members`, as `consul members`: the gossip pool as this agent sees it, in Consul's columns.
import { boolFlag, stringFlag } from "../args.js";
import { type Command, defineCommand, errorText } from "../command.js";
import { formatTable } from "../format.js";
import { asString, field, isObject, type JsonValue } from "../json.js";

/** Serf's member states, indexed by the Status number of /v1/agent/members. */
const STATUS = ["none", "alive", "leaving", "left", "failed"];
/** `-segment` default: every segment (a server's members carry the `<all>` segment). */
const ALL_SEGMENTS = "_all";
const SERVER_ROLE = "consul";
const CLIENT_ROLE = "node";

export interface Member {
  name: string;
  addr: string;
  port: number;
  status: string;
  tags: Record<string, string>;
}

export const membersCommand: Command = defineCommand({
  synopsis: "Lists the members of a Cairn cluster",
  usage: `
Usage: cairn members [options]

  Outputs the members of a running Cairn agent.`,
  http: true,
  flags: {
    detailed: boolFlag("Provides detailed information about nodes."),
    wan: boolFlag(
      "If the agent is in server mode, this can be used to return the other peers in the WAN pool.",
    ),
    status: stringFlag(
      "If provided, output is filtered to only nodes matching the regular expression for status.",
      ".*",
    ),
    segment: stringFlag(
      "(Enterprise-only) If provided, output is filtered to only nodes in the given segment.",
      ALL_SEGMENTS,
    ),
    filter: stringFlag("Filter to use with the request"),
  },
  async run({ values: f }, { io, client }) {
    let statusRe: RegExp;
    try {
      statusRe = new RegExp(f.status);
    } catch (err) {
      io.err(`Failed to compile status regexp: ${errorText(err)}`);
      return 1;
    }
    let raw: JsonValue;
    try {
      raw = await client().json("GET", "/v1/agent/members", {
        query: {
          segment: f.segment || undefined,
          wan: f.wan ? "1" : undefined,
          filter: f.filter || undefined,
        },
      });
    } catch (err) {
      io.err(`Error retrieving members: ${errorText(err)}`);
      return 1;
    }
    const members = (Array.isArray(raw) ? raw : [])
      .map(decodeMember)
      .map((m) => withDisplayTags(m, f.segment))
      .filter((m) => statusRe.test(m.status));
    // Nothing matched: exit 2 with no output, which scripts test for.
    if (members.length === 0) return 2;
    members.sort(compareMembers);
    io.out(formatTable(f.detailed ? detailedRows(members) : standardRows(members)));
    return 0;
  },
});

function decodeMember(v: JsonValue): Member {
  const o = isObject(v) ? v : {};
  const tagsRaw = field(o, "Tags");
  const tags: Record<string, string> = {};
  if (isObject(tagsRaw)) for (const [k, t] of Object.entries(tagsRaw)) tags[k] = asString(t);
  const status = Number(field(o, "Status") ?? 0);
  const port = Number(field(o, "Port") ?? 0);
  return {
    name: asString(field(o, "Name")),
    addr: asString(field(o, "Addr")),
    port: Number.isFinite(port) ? port : 0,
    status: STATUS[status] ?? "unknown",
    tags,
  };
}

/** As consul: the partition defaults to `default`, and the segment shows `<all>` (servers) or `<default>`. */
function withDisplayTags(m: Member, segmentFlag: string): Member {
  const tags = { ...m.tags };
  if (!tags.ap) tags.ap = "default";
  if (tags.ap === "default") {
    if (segmentFlag === ALL_SEGMENTS && tags.role === SERVER_ROLE) tags.segment = "<all>";
    else if (!tags.segment) tags.segment = "<default>";
  } else tags.segment = "";
  return { ...m, tags };
}

/** Servers first, then the default partition, then by segment, partition and name. */
export function compareMembers(a: Member, b: Member): number {
  const server = Number(b.tags.role === SERVER_ROLE) - Number(a.tags.role === SERVER_ROLE);
  if (server !== 0) return server;
  const isDefault = (p: string | undefined) => p === undefined || p === "" || p === "default";
  const partitionFirst = Number(isDefault(b.tags.ap)) - Number(isDefault(a.tags.ap));
  if (partitionFirst !== 0) return partitionFirst;
  return (
    compareText(a.tags.segment ?? "", b.tags.segment ?? "") ||
    compareText(a.tags.ap ?? "", b.tags.ap ?? "") ||
    compareText(a.name, b.name)
  );
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Go's net.TCPAddr string: IPv6 in brackets. */
function address(m: Member): string {
  return `${m.addr.includes(":") ? `[${m.addr}]` : m.addr}:${m.port}`;
}

function standardRows(members: readonly Member[]): string[][] {
  const rows = [["Node", "Address", "Status", "Type", "Build", "Protocol", "DC", "Partition", "Segment"]];
  for (const m of members) {
    const role = m.tags.role;
    if (role !== SERVER_ROLE && role !== CLIENT_ROLE) {
      rows.push([m.name, address(m), m.status, "unknown", "", "", "", "", ""]);
      continue;
    }
    const build = (m.tags.build ?? "") === "" ? "< 0.3" : (m.tags.build ?? "").split(":")[0]!;
    rows.push([
      m.name,
      address(m),
      m.status,
      role === SERVER_ROLE ? "server" : "client",
      build,
      m.tags.vsn ?? "",
      m.tags.dc ?? "",
      m.tags.ap ?? "",
      m.tags.segment ?? "",
    ]);
  }
  return rows;
}

function detailedRows(members: readonly Member[]): string[][] {
  const rows = [["Node", "Address", "Status", "Tags"]];
  for (const m of members) {
    const tags = Object.keys(m.tags)
      .sort()
      .map((k) => `${k}=${m.tags[k]}`)
      .join(",");
    rows.push([m.name, address(m), m.status, tags]);
  }
  return rows;
}
