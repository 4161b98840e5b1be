// `cairn config write`, as `consul config write`: an HCL or JSON file (or `-` for stdin) PUT to /v1/config.
import { readFile } from "node:fs/promises";
import { HclParseError, parseHcl } from "@cairn/hcl";
import { boolFlag, uint64Flag } from "../args.js";
import { type Command, defineCommand, errorText, type Io } from "../command.js";

/** `-` reads stdin, `@path` or `path` reads a file; inline data is not accepted (consul's LoadDataSourceNoRaw). */
async function loadSource(arg: string, io: Io): Promise<string> {
  if (arg === "-") return (await io.readStdin()).toString("utf8");
  try {
    return await readFile(arg.startsWith("@") ? arg.slice(1) : arg, "utf8");
  } catch (err) {
    throw new Error(`Failed to read file: ${errorText(err)}`);
  }
}

/** Kind and Name as the file spells them (Consul's HCL accepts `kind` and `name` too). */
function identify(entry: Record<string, unknown>): { kind: string; name: string } {
  const kind = entry.Kind ?? entry.kind;
  if (kind === undefined) throw new Error("Payload does not contain a kind/Kind key at the top level");
  if (typeof kind !== "string") throw new Error("Kind value in payload is not a string");
  const name = entry.Name ?? entry.name;
  return { kind, name: typeof name === "string" ? name : "" };
}

export const configWrite: Command = defineCommand({
  synopsis: "Create or update a centralized config entry",
  usage: `
Usage: cairn config write [options] <configuration>

  Request a config entry to be created or updated. The configuration
  argument is either a file path or '-' to indicate that the config
  should be read from stdin. The data should be either in HCL or
  JSON form.

  Example (from file):

    $ cairn config write web.service.hcl

  Example (from stdin):

    $ cairn config write -`,
  http: true,
  flags: {
    cas: boolFlag(
      "Perform a Check-And-Set operation. Specifying this value also requires the -modify-index flag to " +
        "be set. The default value is false.",
    ),
    "modify-index": uint64Flag(
      "Unsigned integer representing the ModifyIndex of the config entry. This is used in combination " +
        "with the -cas flag.",
    ),
  },
  async run({ values: f, positionals }, { io, client }) {
    if (positionals.length !== 1) {
      io.err("Must provide exactly one positional argument to specify the config entry to write");
      return 1;
    }
    let text: string;
    try {
      text = await loadSource(positionals[0]!, io);
    } catch (err) {
      io.err(`Failed to load data: ${errorText(err)}`);
      return 1;
    }
    let entry: Record<string, unknown>;
    let id: { kind: string; name: string };
    try {
      entry = parseHcl(text);
      id = identify(entry);
    } catch (err) {
      const reason = err instanceof HclParseError ? err.message.replace(/[\r\n]+/g, " ") : errorText(err);
      io.err(`Failed to decode config entry input: ${reason}`);
      return 1;
    }
    let written: boolean;
    try {
      const res = await client().json("PUT", "/v1/config", {
        body: JSON.stringify(entry),
        query: f.cas ? { cas: f["modify-index"] } : {},
      });
      written = res === true;
    } catch (err) {
      io.err(`Error writing config entry ${id.kind}/${id.name}: ${errorText(err)}`);
      return 1;
    }
    if (!written) {
      io.err(`Config entry not updated: ${id.kind}/${id.name}`);
      return 1;
    }
    io.out(`Config entry written: ${id.kind}/${id.name}`);
    return 0;
  },
});
