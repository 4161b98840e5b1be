// `cairn operator autopilot get-config|set-config|state`, as `consul operator autopilot`.
import { stringFlag } from "../args.js";
import { type Command, commandGroup, defineCommand, errorText } from "../command.js";
import { field, isObject, type JsonValue } from "../json.js";
import { formatFlag, show } from "./acl-format.js";

type Obj = { [key: string]: JsonValue };

/** The fields get-config prints and set-config may change, in Consul's order. */
const FIELDS = [
  "CleanupDeadServers",
  "LastContactThreshold",
  "MaxTrailingLogs",
  "MinQuorum",
  "ServerStabilizationTime",
  "RedundancyZoneTag",
  "DisableUpgradeMigration",
  "UpgradeVersionTag",
] as const;

const text = (v: JsonValue | undefined) => (typeof v === "string" ? JSON.stringify(v) : String(v ?? ""));

const getConfig = defineCommand({
  synopsis: "Display the current Autopilot configuration",
  usage: `
Usage: cairn operator autopilot get-config [options]

  Displays the current autopilot configuration.`,
  http: true,
  flags: {},
  async run(_args, { io, client }) {
    try {
      const body = await client().json("GET", "/v1/operator/autopilot/configuration", { read: true });
      const config = isObject(body) ? body : {};
      for (const name of FIELDS) {
        const value = field(config, name);
        // Durations and tags print bare except the empty tags, which Consul quotes.
        io.out(`${name} = ${typeof value === "string" && value !== "" ? value : text(value)}`);
      }
      return 0;
    } catch (err) {
      io.err(`Error querying Autopilot configuration: ${errorText(err)}`);
      return 1;
    }
  },
});

/** set-config's flags: each changes its field only when given. */
const SET_FLAGS = {
  "cleanup-dead-servers": stringFlag(
    "Controls whether Cairn will automatically remove dead servers (true|false).",
  ),
  "disable-upgrade-migration": stringFlag(
    "Accepted for compatibility; Cairn has no upgrade migration (true|false).",
  ),
  "max-trailing-logs": stringFlag(
    "Controls the maximum number of log entries a server can trail the leader by.",
  ),
  "min-quorum": stringFlag(
    "Sets the minimum number of servers required before autopilot removes dead servers.",
  ),
  "last-contact-threshold": stringFlag(
    "Controls the maximum amount of time a server can go without contact.",
  ),
  "server-stabilization-time": stringFlag(
    "Controls how long a server must be stable before becoming a voter.",
  ),
  "redundancy-zone-tag": stringFlag("Accepted for compatibility; Cairn has no redundancy zones."),
  "upgrade-version-tag": stringFlag("Accepted for compatibility; Cairn has no upgrade migration."),
};

/** The JSON value of a set-config flag for its field, or an error message. */
function flagValue(name: keyof typeof SET_FLAGS, raw: string): JsonValue | string[] {
  if (name === "cleanup-dead-servers" || name === "disable-upgrade-migration") {
    if (raw === "true" || raw === "false") return raw === "true";
    return [`-${name}: expected true or false, got "${raw}"`];
  }
  if (name === "max-trailing-logs" || name === "min-quorum") {
    if (/^\d+$/.test(raw)) return Number(raw);
    return [`-${name}: expected a whole number, got "${raw}"`];
  }
  return raw;
}

const FIELD_OF: Record<keyof typeof SET_FLAGS, (typeof FIELDS)[number]> = {
  "cleanup-dead-servers": "CleanupDeadServers",
  "disable-upgrade-migration": "DisableUpgradeMigration",
  "max-trailing-logs": "MaxTrailingLogs",
  "min-quorum": "MinQuorum",
  "last-contact-threshold": "LastContactThreshold",
  "server-stabilization-time": "ServerStabilizationTime",
  "redundancy-zone-tag": "RedundancyZoneTag",
  "upgrade-version-tag": "UpgradeVersionTag",
};

const setConfig = defineCommand({
  synopsis: "Modify the current Autopilot configuration",
  usage: `
Usage: cairn operator autopilot set-config [options]

  Modifies the current Autopilot configuration; options not given keep their values. The change is a
  check-and-set against the configuration just read.`,
  http: true,
  flags: SET_FLAGS,
  async run({ values, given }, { io, client }) {
    try {
      const current = await client().json("GET", "/v1/operator/autopilot/configuration", { read: true });
      const config: Obj = isObject(current) ? { ...current } : {};
      for (const name of Object.keys(SET_FLAGS) as (keyof typeof SET_FLAGS)[]) {
        if (!given.has(name)) continue;
        const value = flagValue(name, values[name]);
        if (Array.isArray(value)) {
          io.err(`Error parsing flags: ${value[0]}`);
          return 1;
        }
        config[FIELD_OF[name]] = value;
      }
      const cas = String(field(config, "ModifyIndex") ?? 0);
      const ok = await client().json("PUT", "/v1/operator/autopilot/configuration", {
        query: { cas },
        body: JSON.stringify(config),
      });
      if (ok === true) {
        io.out("Configuration updated!");
        return 0;
      }
      io.out("Configuration could not be atomically updated, please try again");
      return 1;
    } catch (err) {
      io.err(`Error setting Autopilot configuration: ${errorText(err)}`);
      return 1;
    }
  },
});

function prettyState(state: Obj): string {
  const lines = [
    `Healthy:                      ${text(field(state, "Healthy"))}`,
    `Failure Tolerance:            ${text(field(state, "FailureTolerance"))}`,
    `Optimistic Failure Tolerance: ${text(field(state, "OptimisticFailureTolerance"))}`,
    `Leader:                       ${text(field(state, "Leader")).replaceAll('"', "")}`,
    "Voters:",
  ];
  const voters = field(state, "Voters");
  for (const id of Array.isArray(voters) ? voters : []) lines.push(`   ${String(id)}`);
  lines.push("", "Servers:");
  const servers = field(state, "Servers");
  for (const [id, server] of Object.entries(isObject(servers) ? servers : {})) {
    if (!isObject(server)) continue;
    const health = field(server, "Health");
    lines.push(
      `   ${id}`,
      `      Name:            ${String(field(server, "Name") ?? "")}`,
      `      Address:         ${String(field(server, "Address") ?? "")}`,
      `      Version:         ${String(field(server, "Version") ?? "")}`,
      `      Status:          ${String(field(server, "Status") ?? "")}`,
      `      Node Status:     ${String(field(server, "NodeStatus") ?? "")}`,
      `      Healthy:         ${isObject(health) ? text(field(health, "Healthy")) : ""}`,
      `      Last Contact:    ${String(field(server, "LastContact") ?? "")}`,
      `      Last Term:       ${text(field(server, "LastTerm"))}`,
      `      Last Index:      ${text(field(server, "LastIndex"))}`,
    );
  }
  return lines.join("\n");
}

const state = defineCommand({
  synopsis: "Display the current Autopilot state",
  usage: `
Usage: cairn operator autopilot state [options]

  Displays the current Autopilot state.`,
  http: true,
  flags: { format: formatFlag },
  async run({ values: f }, { io, client }) {
    try {
      const body = await client().json("GET", "/v1/operator/autopilot/state", { read: true });
      return show(io, f.format, body, prettyState);
    } catch (err) {
      io.err(`Error querying Autopilot state: ${errorText(err)}`);
      return 1;
    }
  },
});

export const autopilotCommand: Command = commandGroup(
  "Provides tools for modifying Autopilot configuration",
  `
Usage: cairn operator autopilot <subcommand> [options]

  The Autopilot operator command is used to interact with Cairn's Autopilot subsystem.

      $ cairn operator autopilot get-config
      $ cairn operator autopilot set-config -cleanup-dead-servers=false
      $ cairn operator autopilot state`,
  { "get-config": getConfig, "set-config": setConfig, state },
);
