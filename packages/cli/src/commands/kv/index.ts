// `cairn kv`: the key-value store commands, flag for flag and message for message as `consul kv`.
import { type Command, commandGroup } from "../../command.js";
import { kvDelete } from "./delete.js";
import { kvExport } from "./export.js";
import { kvGet } from "./get.js";
import { kvImport } from "./import.js";
import { kvPut } from "./put.js";

export const kvCommand: Command = commandGroup(
  "Interact with the key-value store",
  `
Usage: cairn kv <subcommand> [options] [args]

  This command has subcommands for interacting with Cairn's key-value store.
  Here are some simple examples, and more detailed examples are available in
  the subcommands or the documentation.

      $ cairn kv put redis/config/connections 5
      $ cairn kv get redis/config/connections
      $ cairn kv get -recurse redis/config
      $ cairn kv delete redis/config/connections`,
  { get: kvGet, put: kvPut, delete: kvDelete, export: kvExport, import: kvImport },
);
