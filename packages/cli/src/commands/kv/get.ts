// `cairn kv get`, as `consul kv get`.
import { boolFlag, stringFlag } from "../../args.js";
import { type Command, defineCommand, errorText } from "../../command.js";
import { formatDetailed, formatValue } from "../../format.js";
import { KvApi } from "../../kv-api.js";
import { stripSlash } from "./data.js";

export const kvGet: Command = defineCommand({
  synopsis: "Retrieves or lists data from the KV store",
  usage: `
Usage: cairn kv get [options] [KEY_OR_PREFIX]

  Retrieves the value from the key-value store at the given key name. If no key
  exists with that name, an error is returned. If a key exists with that name
  but has no data, nothing is returned. If the name or prefix is omitted, it
  defaults to "" which is the root of the key-value store.

      $ cairn kv get foo
      $ cairn kv get -detailed foo
      $ cairn kv get -recurse foo
      $ cairn kv get -keys foo`,
  http: true,
  flags: {
    base64: boolFlag("Base64 encode the value. The default value is false."),
    detailed: boolFlag(
      "Provide additional metadata about the key in addition to the value such as the ModifyIndex and " +
        "any flags that may have been set on the key. The default value is false.",
    ),
    keys: boolFlag(
      "List keys which start with the given prefix, but not their values. This option is commonly " +
        "combined with the -separator option. The default value is false.",
    ),
    recurse: boolFlag(
      "Recursively look at all keys prefixed with the given path. The default value is false.",
    ),
    separator: stringFlag(
      'String to use as a separator between keys. The default value is "/", but this option is only ' +
        "taken into account when paired with the -keys flag.",
      "/",
    ),
  },
  async run({ values: f, positionals }, { io, client }) {
    if (positionals.length > 1) {
      io.err(`Too many arguments (expected 1, got ${positionals.length})`);
      return 1;
    }
    const key = stripSlash(positionals[0] ?? "");
    if (key === "" && !(f.recurse || f.keys)) {
      io.err("Error! Missing KEY argument");
      return 1;
    }
    const kv = new KvApi(client());
    try {
      if (f.keys) {
        for (const k of await kv.keys(key, f.separator)) io.out(k);
        return 0;
      }
      if (f.recurse) {
        const { entries } = await kv.list(key);
        entries.forEach((entry, i) => {
          if (!f.detailed)
            io.out(Buffer.concat([Buffer.from(`${entry.key}:`), formatValue(entry.value, f.base64)]));
          else {
            io.out(formatDetailed(entry, f.base64));
            if (i < entries.length - 1) io.out("");
          }
        });
        return 0;
      }
      const { entry } = await kv.get(key);
      if (entry === undefined) {
        io.err(`Error! No key exists at: ${key}`);
        return 1;
      }
      io.out(f.detailed ? formatDetailed(entry, f.base64) : formatValue(entry.value, f.base64));
      return 0;
    } catch (err) {
      io.err(`Error querying Cairn agent: ${errorText(err)}`);
      return 1;
    }
  },
});
