// `cairn config delete`, as `consul config delete`.
import { boolFlag, stringFlag, uint64Flag } from "../args.js";
import { type Command, defineCommand, errorText } from "../command.js";
import { entryPath } from "./config-read.js";

export const configDelete: Command = defineCommand({
  synopsis: "Delete a centralized config entry",
  usage: `
Usage: cairn config delete [options] -kind <config kind> -name <config name>

  Deletes the configuration entry specified by the kind and name.

  Example:

    $ cairn config delete -kind service-defaults -name web`,
  http: true,
  flags: {
    kind: stringFlag("The kind of configuration to delete."),
    name: stringFlag("The name of configuration to delete."),
    cas: boolFlag(
      "Perform a Check-And-Set operation. Specifying this value also requires the -modify-index flag to " +
        "be set. The default value is false.",
    ),
    "modify-index": uint64Flag(
      "Unsigned integer representing the ModifyIndex of the config entry. This is used in combination " +
        "with the -cas flag.",
    ),
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
    let deleted: boolean;
    try {
      const res = await client().json("DELETE", entryPath(f.kind, f.name), {
        query: f.cas ? { cas: f["modify-index"] } : {},
      });
      deleted = !f.cas || res === true;
    } catch (err) {
      io.err(`Error deleting config entry ${f.kind}/${f.name}: ${errorText(err)}`);
      return 1;
    }
    if (!deleted) {
      io.err(`Config entry not deleted: ${f.kind}/${f.name}`);
      return 1;
    }
    io.out(`Config entry deleted: ${f.kind}/${f.name}`);
    return 0;
  },
});
