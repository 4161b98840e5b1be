// `cairn services register|deregister`, as `consul services ...`: from definition files (HCL or JSON, `service`
// or `services` blocks) or from flags.
import { readFileSync } from "node:fs";
import { parseConfigText } from "@cairn/agent";
import { intFlag, stringFlag } from "../args.js";
import { type Command, commandGroup, defineCommand, errorText } from "../command.js";
import { keyValues, withRepeatedFlags } from "./catalog-repeated-flags.js";

type Definition = Record<string, unknown>;

const register: Command = withRepeatedFlags(["tag", "meta"], [], (repeated) =>
  defineCommand({
    synopsis: "Register services with the local agent",
    usage: `
Usage: cairn services register [options] [FILE...]

  Register one or more services using the local agent API. Services can be
  registered from standard Consul service definition files (HCL or JSON), or
  with the flags below.

      $ cairn services register web.json
      $ cairn services register -name=web -port=8080 -tag=v1 -tag=primary`,
    http: true,
    flags: {
      name: stringFlag("Name of the service to register."),
      id: stringFlag("ID of the service to register."),
      address: stringFlag("Address of the service."),
      port: intFlag("Port of the service."),
      tag: stringFlag("Tag to add to the service. This flag can be specified multiple times."),
      meta: stringFlag(
        "Metadata to set on the service, formatted as key=value. This flag may be specified multiple times.",
      ),
    },
    async run({ values: f, positionals }, { io, client }) {
      let definitions: Definition[];
      try {
        if (positionals.length === 0) {
          if (f.name === "") {
            io.err("Service name must be specified via the -name flag or a file");
            return 1;
          }
          definitions = [
            {
              Name: f.name,
              ...(f.id ? { ID: f.id } : {}),
              ...(f.address ? { Address: f.address } : {}),
              ...(f.port ? { Port: f.port } : {}),
              Tags: [...(repeated.tag ?? [])],
              Meta: keyValues("meta", repeated.meta ?? []),
            },
          ];
        } else {
          if (f.name !== "") {
            io.err("Service flags cannot be combined with definition files");
            return 1;
          }
          definitions = positionals.flatMap(readDefinitions);
        }
      } catch (err) {
        io.err(`Error: ${errorText(err)}`);
        return 1;
      }
      for (const def of definitions) {
        try {
          await client().request("PUT", "/v1/agent/service/register", { body: JSON.stringify(def) });
          io.out(`Registered service: ${String(def.Name ?? def.name ?? "")}`);
        } catch (err) {
          io.err(`Error registering service "${String(def.Name ?? def.name ?? "")}": ${errorText(err)}`);
          return 1;
        }
      }
      return 0;
    },
  }),
);

const deregister: Command = defineCommand({
  synopsis: "Deregister services with the local agent",
  usage: `
Usage: cairn services deregister [options] [FILE...]

  Deregister one or more services that were previously registered with the
  local agent, by ID (-id) or by the definition files they were registered with.

      $ cairn services deregister web.json
      $ cairn services deregister -id=web`,
  http: true,
  flags: { id: stringFlag("ID to delete. This must not be set if arguments are given.") },
  async run({ values: f, positionals }, { io, client }) {
    if (f.id !== "" && positionals.length > 0) {
      io.err("Only one of -id or a file may be given");
      return 1;
    }
    let ids: string[];
    try {
      ids =
        f.id !== ""
          ? [f.id]
          : positionals.flatMap(readDefinitions).map((d) => String(d.ID ?? d.id ?? d.Name ?? d.name ?? ""));
    } catch (err) {
      io.err(`Error: ${errorText(err)}`);
      return 1;
    }
    if (ids.length === 0) {
      io.err("Service deregistration requires at least one argument or -id.");
      return 1;
    }
    for (const id of ids) {
      try {
        await client().request(
          "PUT",
          `/v1/agent/service/deregister/${id.split("/").map(encodeURIComponent).join("/")}`,
        );
        io.out(`Deregistered service: ${id}`);
      } catch (err) {
        io.err(`Error deregistering service "${id}": ${errorText(err)}`);
        return 1;
      }
    }
    return 0;
  },
});

export const servicesCommand: Command = commandGroup(
  "Interact with services",
  `
Usage: cairn services <subcommand> [options] [args]

  This command has subcommands for registering and deregistering services
  with the local agent.`,
  { register, deregister },
);

/** The `service` / `services` blocks of a definition file (HCL or JSON by extension). */
function readDefinitions(path: string): Definition[] {
  const text = readFileSync(path, "utf8");
  const parsed = parseConfigText({ name: path, format: path.endsWith(".json") ? "json" : "hcl", text });
  const blocks = [parsed.service, parsed.services].flatMap((b) =>
    Array.isArray(b) ? b : b === undefined ? [] : [b],
  );
  const defs = blocks.filter(
    (b): b is Definition => typeof b === "object" && b !== null && !Array.isArray(b),
  );
  if (defs.length === 0) throw new Error(`${path}: no service definition found (expected a "service" block)`);
  return defs;
}
