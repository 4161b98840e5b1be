// `cairn operator raft list-peers|remove-peer|transfer-leader` and `cairn operator autopilot ...`, as
// `consul operator`.
import { stringFlag } from "../args.js";
import { type Command, commandGroup, defineCommand, errorText } from "../command.js";
import { formatTable } from "../format.js";
import { field, isObject, type JsonValue } from "../json.js";
import { autopilotCommand } from "./operator-autopilot.js";

/** The peer table of `consul operator raft list-peers`, from a /v1/operator/raft/configuration body. */
export function formatPeers(body: JsonValue): string {
  const servers = isObject(body) ? field(body, "Servers") : undefined;
  const list = Array.isArray(servers) ? servers.filter(isObject) : [];
  const text = (v: JsonValue | undefined) => (v === undefined || v === null ? "" : String(v));
  const lastIndex = (s: { [key: string]: JsonValue }): bigint | undefined => {
    const v = field(s, "LastIndex");
    return typeof v === "bigint" || (typeof v === "number" && Number.isInteger(v)) ? BigInt(v) : undefined;
  };
  // Newer servers report each peer's last index; the commit columns appear only when they do.
  const withCommits = list.some((s) => lastIndex(s) !== undefined);
  const leader = list.find((s) => field(s, "Leader") === true);
  const leaderIndex = leader === undefined ? 0n : (lastIndex(leader) ?? 0n);
  const header = ["Node", "ID", "Address", "State", "Voter", "RaftProtocol"];
  if (withCommits) header.push("Commit Index", "Trails Leader By");
  const rows = list.map((s) => {
    const isLeader = field(s, "Leader") === true;
    const protocol = text(field(s, "ProtocolVersion"));
    const row = [
      text(field(s, "Node")),
      text(field(s, "ID")),
      text(field(s, "Address")),
      isLeader ? "leader" : "follower",
      field(s, "Voter") === true ? "true" : "false",
      protocol === "" ? "<=1" : protocol,
    ];
    if (withCommits) {
      const own = lastIndex(s) ?? 0n;
      const behind = leaderIndex - own;
      row.push(own.toString(), isLeader ? "-" : `${behind} ${behind === 1n ? "commit" : "commits"}`);
    }
    return row;
  });
  return formatTable([header, ...rows]);
}

const listPeers = defineCommand({
  synopsis: "Display the current Raft peer configuration",
  usage: `
Usage: cairn operator raft list-peers [options]

  Displays the current Raft peer configuration.`,
  http: true,
  flags: {},
  async run(_args, { io, client }) {
    try {
      const body = await client().json("GET", "/v1/operator/raft/configuration", { read: true });
      io.out(formatPeers(body));
      return 0;
    } catch (err) {
      io.err(`Error getting peers: Failed to retrieve raft configuration: ${errorText(err)}`);
      return 1;
    }
  },
});

const removePeer = defineCommand({
  synopsis: "Remove a Cairn server from the Raft configuration",
  usage: `
Usage: cairn operator raft remove-peer [options]

  Remove the server with the given -address or -id from the Raft configuration.

  There are rare cases where a peer may be left behind in the Raft quorum even
  though the server is no longer present and known to the cluster. This command
  removes the failed server so that it no longer affects the Raft quorum.`,
  http: true,
  flags: {
    address: stringFlag("The address to remove from the Raft configuration."),
    id: stringFlag("The ID to remove from the Raft configuration."),
  },
  async run({ values: f }, { io, client }) {
    if (f.address === "" && f.id === "") {
      io.err("Error removing peer: an address or id is required for the peer to remove");
      return 1;
    }
    if (f.address !== "" && f.id !== "") {
      io.err("Error removing peer: cannot give both an address and id");
      return 1;
    }
    try {
      const query = f.address !== "" ? { address: f.address } : { id: f.id };
      (await client().request("DELETE", "/v1/operator/raft/peer", { query })).discard();
    } catch (err) {
      io.err(`Error removing peer: ${errorText(err)}`);
      return 1;
    }
    io.out(f.address !== "" ? `Removed peer with address "${f.address}"` : `Removed peer with id "${f.id}"`);
    return 0;
  },
});

const transferLeader = defineCommand({
  synopsis: "Transfer raft leadership to another node",
  usage: `
Usage: cairn operator raft transfer-leader [options]

  Transfer Raft leadership to another server: the one given by -id, or any
  up-to-date voter when -id is omitted.`,
  http: true,
  flags: { id: stringFlag("The ID of the node to transfer leadership to.") },
  async run({ values: f }, { io, client }) {
    try {
      const body = await client().json("POST", "/v1/operator/raft/transfer-leader", {
        query: { id: f.id === "" ? undefined : f.id },
      });
      if (!isObject(body) || field(body, "Success") !== true) {
        io.err("Error transfering leadership: Failed to transfer leadership");
        return 1;
      }
    } catch (err) {
      io.err(`Error transfering leadership: Failed to transfer leadership ${errorText(err)}`);
      return 1;
    }
    io.out("Success");
    return 0;
  },
});

export const operatorCommand: Command = commandGroup(
  "Provides cluster-level tools for Cairn operators",
  `
Usage: cairn operator <subcommand> [options]

  Provides cluster-level tools for Cairn operators, such as interacting with
  the Raft subsystem.`,
  {
    raft: commandGroup(
      "Provides cluster-level tools for Cairn operators",
      `
Usage: cairn operator raft <subcommand> [options]

  The Raft operator command is used to interact with Cairn's Raft subsystem.

      $ cairn operator raft list-peers
      $ cairn operator raft remove-peer -address="10.0.1.8:8300"
      $ cairn operator raft transfer-leader -id=<server id>`,
      { "list-peers": listPeers, "remove-peer": removePeer, "transfer-leader": transferLeader },
    ),
    autopilot: autopilotCommand,
  },
);
