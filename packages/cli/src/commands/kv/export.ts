// `cairn kv export`, as `consul kv export`: the JSON that `kv import` (ours or consul's) reads back.
import { type Command, defineCommand, errorText } from "../../command.js";
import { type JsonValue, stringifyGo } from "../../json.js";
import { KvApi } from "../../kv-api.js";
import { stripSlash } from "./data.js";

export const kvExport: Command = defineCommand({
  synopsis: "Exports a tree from the KV store as JSON",
  usage: `
Usage: cairn kv export [KEY_OR_PREFIX]

  Retrieves key-value pairs for the given prefix from the key-value store, and
  writes a JSON representation to stdout. This can be used with the command
  "cairn kv import" to move entire trees between clusters.

      $ cairn kv export vault`,
  http: true,
  flags: {},
  async run({ positionals }, { io, client }) {
    if (positionals.length > 1) {
      io.err(`Too many arguments (expected 1, got ${positionals.length})`);
      return 1;
    }
    const prefix = stripSlash(positionals[0] ?? "");
    try {
      const { entries } = await new KvApi(client()).list(prefix);
      const exported: JsonValue = entries.map((e) => ({
        key: e.key,
        flags: e.flags,
        value: e.value.toString("base64"),
      }));
      io.out(stringifyGo(exported));
      return 0;
    } catch (err) {
      io.err(`Error querying Cairn agent: ${errorText(err)}`);
      return 1;
    }
  },
});
