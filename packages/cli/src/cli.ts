// The `cairn` command tree and its entry point, independent of the process so tests can drive it.
import { type Command, commandGroup, errorText, type Io } from "./command.js";
import { aclCommand } from "./commands/acl.js";
import { agentCommand } from "./commands/agent.js";
import { catalogCommand } from "./commands/catalog.js";
import { configCommand } from "./commands/config.js";
import { eventCommand } from "./commands/event.js";
import { forceLeaveCommand } from "./commands/force-leave.js";
import { joinCommand } from "./commands/join.js";
import { keygenCommand } from "./commands/keygen.js";
import { keyringCommand } from "./commands/keyring.js";
import { kvCommand } from "./commands/kv/index.js";
import { leaveCommand } from "./commands/leave.js";
import { lockCommand } from "./commands/lock.js";
import { loginCommand, logoutCommand } from "./commands/login.js";
import { maintCommand } from "./commands/maint.js";
import { membersCommand } from "./commands/members.js";
import { monitorCommand } from "./commands/monitor.js";
import { namespaceCommand } from "./commands/namespace.js";
import { operatorCommand } from "./commands/operator.js";
import { reloadCommand } from "./commands/reload.js";
import { servicesCommand } from "./commands/services.js";
import { snapshotCommand } from "./commands/snapshot.js";
import { tlsCommand } from "./commands/tls.js";
import { versionCommand } from "./commands/version.js";
import { watchCommand } from "./commands/watch.js";

export const rootCommand: Command = commandGroup(
  "Cairn",
  `
Usage: cairn [--version] [--help] <command> [<args>]

  A clustered service registry and configuration store that speaks Consul's
  HTTP API. Every command that talks to a server takes -http-addr (or
  CAIRN_HTTP_ADDR / CONSUL_HTTP_ADDR) and -token (or CAIRN_HTTP_TOKEN /
  CONSUL_HTTP_TOKEN).`,
  {
    acl: aclCommand,
    agent: agentCommand,
    catalog: catalogCommand,
    config: configCommand,
    event: eventCommand,
    "force-leave": forceLeaveCommand,
    join: joinCommand,
    keygen: keygenCommand,
    keyring: keyringCommand,
    kv: kvCommand,
    leave: leaveCommand,
    lock: lockCommand,
    login: loginCommand,
    logout: logoutCommand,
    maint: maintCommand,
    members: membersCommand,
    monitor: monitorCommand,
    namespace: namespaceCommand,
    operator: operatorCommand,
    reload: reloadCommand,
    services: servicesCommand,
    snapshot: snapshotCommand,
    tls: tlsCommand,
    version: versionCommand,
    watch: watchCommand,
  },
);

/** Runs `cairn ARGV...`; returns the exit code. Unexpected failures become one line and exit code 1. */
export async function runCli(argv: readonly string[], io: Io): Promise<number> {
  const args = argv[0] === "-version" || argv[0] === "--version" || argv[0] === "-v" ? ["version"] : argv;
  try {
    return await rootCommand.run(args, io);
  } catch (err) {
    io.err(`Error: ${errorText(err)}`);
    return 1;
  }
}
