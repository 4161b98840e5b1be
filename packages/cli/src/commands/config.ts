// `cairn config`: centralized config entries, flag for flag and message for message as `consul config`.
import { type Command, commandGroup } from "../command.js";
import { configDelete } from "./config-delete.js";
import { configList, configRead } from "./config-read.js";
import { configWrite } from "./config-write.js";

export const configCommand: Command = commandGroup(
  "Interact with Cairn's Centralized Configurations",
  `
Usage: cairn config <subcommand> [options] [args]

  This command has subcommands for interacting with Cairn's centralized
  configuration entries. Here are some simple examples, and more detailed
  examples are available in the subcommands or the documentation.

  Create or update a config entry:

    $ cairn config write web.service.hcl

  Read a config entry:

    $ cairn config read -kind service-defaults -name web

  List all config entries of a kind:

    $ cairn config list -kind service-defaults

  Delete a config entry:

    $ cairn config delete -kind service-defaults -name web`,
  { write: configWrite, read: configRead, list: configList, delete: configDelete },
);
