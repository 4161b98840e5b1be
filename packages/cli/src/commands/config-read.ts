// `cairn config read` and `cairn config list`, as their consul namesakes.
import { stringFlag } from "../args.js";
import { type Command, defineCommand, errorText } from "../command.js";
import { asString, field, isObject, stringifyGo } from "../json.js";

export const entryPath = (kind: string, name = "") =>
  `/v1/config/${encodeURIComponent(kind)}${name === "" ? "" : `/${encodeURIComponent(name)}`}`;

export const configRead: Command = defineCommand({
  synopsis: "Read a centralized config entry",
  usage: `
Usage: cairn config read [options] -kind <config kind> -name <config name>

  Reads the config entry specified by the given kind and name and outputs its
  JSON representation.

  Example:

    $ cairn config read -kind proxy-defaults -name global`,
  http: true,
  flags: {
    kind: stringFlag("The kind of configuration to read."),
    name: stringFlag("The name of configuration to read."),
  },
  async run({ values: f }, { io, client }) {
    if (f.kind === "") {
      io.err("Must specify the -kind parameter");
      return 1;
    }
    if (f.name === "") {
      io.err("Must specify the -name parameter");
      return 1;
    }
    try {
      const entry = await client().json("GET", entryPath(f.kind, f.name), { read: true });
      io.out(stringifyGo(entry, "    "));
      return 0;
    } catch (err) {
      io.err(`Error reading config entry ${f.kind}/${f.name}: ${errorText(err)}`);
      return 1;
    }
  },
});

export const configList: Command = defineCommand({
  synopsis: "List centralized config entries of a given kind",
  usage: `
Usage: cairn config list [options] -kind <config kind>

  Lists all of the config entries for a given kind.

  Example:

    $ cairn config list -kind service-defaults`,
  http: true,
  flags: { kind: stringFlag("The kind of configurations to list.") },
  async run({ values: f }, { io, client }) {
    if (f.kind === "") {
      io.err("Must specify the -kind parameter");
      return 1;
    }
    try {
      const entries = await client().json("GET", entryPath(f.kind), { read: true });
      for (const entry of Array.isArray(entries) ? entries : []) {
        if (isObject(entry)) io.out(asString(field(entry, "Name")));
      }
      return 0;
    } catch (err) {
      io.err(`Error listing config entries for kind "${f.kind}": ${errorText(err)}`);
      return 1;
    }
  },
});
