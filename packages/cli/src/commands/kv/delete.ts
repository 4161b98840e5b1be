// `cairn kv delete`, as `consul kv delete`.
import { boolFlag, uint64Flag } from "../../args.js";
import { type Command, defineCommand, errorText } from "../../command.js";
import { KvApi } from "../../kv-api.js";
import { stripSlash } from "./data.js";

export const kvDelete: Command = defineCommand({
  synopsis: "Removes data from the KV store",
  usage: `
Usage: cairn kv delete [options] KEY_OR_PREFIX

  Removes the value from the key-value store at the given path. If no key
  exists at the path, no action is taken.

      $ cairn kv delete foo

  To delete all keys which start with "foo", specify the -recurse option:

      $ cairn kv delete -recurse foo`,
  http: true,
  flags: {
    cas: boolFlag(
      "Perform a Check-And-Set operation. Specifying this value also requires the -modify-index flag " +
        "to be set. The default value is false.",
    ),
    "modify-index": uint64Flag(
      "Unsigned integer representing the ModifyIndex of the key. This is used in combination with the -cas flag.",
    ),
    recurse: boolFlag("Recursively delete all keys with the path. The default value is false."),
  },
  async run({ values: f, positionals }, { io, client }) {
    if (positionals.length > 1) {
      io.err(`Too many arguments (expected 1, got ${positionals.length})`);
      return 1;
    }
    const key = stripSlash(positionals[0] ?? "");
    const index = f["modify-index"];
    if (key === "" && !f.recurse) {
      io.err("Error! Missing KEY argument");
      return 1;
    }
    if (f.cas && index === 0n) {
      io.err("Cannot delete a key that does not exist. Provide a -modify-index greater than than 0.");
      return 1;
    }
    if (index !== 0n && !f.cas) {
      io.err("Cannot specify -modify-index without -cas!");
      return 1;
    }
    if (f.recurse && f.cas) {
      io.err("Cannot specify both -cas and -recurse!");
      return 1;
    }
    const kv = new KvApi(client());
    if (f.recurse) {
      try {
        await kv.delete(key, { recurse: true });
      } catch (err) {
        io.err(`Error! Did not delete prefix ${key}: ${errorText(err)}`);
        return 1;
      }
      io.out(`Success! Deleted keys with prefix: ${key}`);
      return 0;
    }
    if (f.cas) {
      let ok: boolean;
      try {
        ok = await kv.delete(key, { cas: index });
      } catch (err) {
        io.err(`Error! Did not delete key ${key}: ${errorText(err)}`);
        return 1;
      }
      if (!ok) {
        io.err(`Error! Did not delete key ${key}: CAS failed`);
        return 1;
      }
      io.out(`Success! Deleted key: ${key}`);
      return 0;
    }
    try {
      await kv.delete(key);
    } catch (err) {
      io.err(`Error deleting key ${key}: ${errorText(err)}`);
      return 1;
    }
    io.out(`Success! Deleted key: ${key}`);
    return 0;
  },
});
