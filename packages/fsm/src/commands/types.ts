import type { AuthMethodCommand } from "../acl/auth-methods.js";
import type { AclCommand } from "../acl/commands.js";
import type { AutopilotSetCommand } from "../autopilot/autopilot.js";
import type { CatalogCommand } from "../catalog/commands.js";
import type { ConfigEntryCommand } from "../config/commands.js";
import type { CoordinateBatchUpdateCommand } from "../coordinates/commands.js";
import type { KvCommand } from "../kv/commands.js";
import type { NamespaceCommand } from "../namespaces/commands.js";
import type { PreparedQueryCommand } from "../queries/commands.js";
import type { SessionCommand } from "../sessions/commands.js";
import type { TxnCommand } from "../txn/commands.js";

export { COMMAND_VERSION } from "./version.js";

/** Every command, as each area defines its own (see commands/version.ts for what a command is). */
export type Command =
  | KvCommand
  | SessionCommand
  | TxnCommand
  | CatalogCommand
  | CoordinateBatchUpdateCommand
  | ConfigEntryCommand
  | PreparedQueryCommand
  | AclCommand
  | AuthMethodCommand
  | NamespaceCommand
  | AutopilotSetCommand;

export type CommandType = Command["type"];
