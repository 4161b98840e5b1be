// `cairn tls`: the agent CA and certificates for TLS between agents and for the HTTPS API.
import { type Command, commandGroup } from "../command.js";
import { tlsCaCreateCommand } from "./tls-ca-create.js";
import { tlsCertCreateCommand } from "./tls-cert-create.js";

export const tlsCommand: Command = commandGroup(
  "Builtin helpers for creating CAs and certificates",
  `
Usage: cairn tls <subcommand> <subcommand> [options]

  This command has subcommands for interacting with Cairn TLS.

  Create a CA

    $ cairn tls ca create

  Create a server certificate

    $ cairn tls cert create -server

  Create a client certificate

    $ cairn tls cert create -client`,
  {
    ca: commandGroup("Helpers for CAs", "Usage: cairn tls ca <subcommand> [options]", {
      create: tlsCaCreateCommand,
    }),
    cert: commandGroup("Helpers for certificates", "Usage: cairn tls cert <subcommand> [options]", {
      create: tlsCertCreateCommand,
    }),
  },
);
