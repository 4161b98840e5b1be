// `cairn kv get|put|delete|export|import`, flag for flag and message for message as `consul kv`.
import { readFile } from "node:fs/promises";
import { boolFlag, stringFlag, uint64Flag } from "../args.js";
import { type Command, commandGroup, defineCommand, errorText, type Io } from "../command.js";
import { formatDetailed, formatValue, joinPath } from "../format.js";
import { field, isObject, type JsonValue, parseJson, stringifyGo } from "../json.js";
import { KvApi } from "../kv-api.js";

/** Keys cannot start with "/", but users type "/foo"; consul strips one leading slash for them. */
function stripSlash(key: string): string {
  return key.startsWith("/") ? key.slice(1) : key;
}

/** DATA arguments: `@file` reads a file, `-` reads stdin, anything else is the value itself. */
async function loadDataSource(arg: string, io: Io): Promise<Buffer> {
  if (arg.startsWith("@")) {
    try {
      return await readFile(arg.slice(1));
    } catch (err) {
      throw new Error(`Failed to read file: ${errorText(err)}`);
    }
  }
  if (arg === "-") {
    try {
      return await io.readStdin();
    } catch (err) {
      throw new Error(`Failed to read stdin: ${errorText(err)}`);
    }
  }
  return Buffer.from(arg, "utf8");
}

const get = defineCommand({
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

const put = defineCommand({
  synopsis: "Sets or updates data in the KV store",
  usage: `
Usage: cairn kv put [options] KEY [DATA]

  Writes the data to the given path in the key-value store. The data can be of
  any type.

      $ cairn kv put config/redis/maxconns 5

  The data can also be consumed from a file on disk by prefixing with the "@"
  symbol, or read from stdin using the "-" symbol:

      $ cairn kv put config/program/license @license.lic
      $ echo "abcd1234" | cairn kv put config/program/license -

  If DATA is omitted, an empty key-value pair is created. If the -base64 flag
  is specified, the data is treated as base 64 encoded.

  To perform a Check-And-Set operation, specify the -cas flag with the
  -modify-index of the key you expect to replace:

      $ cairn kv put -cas -modify-index=844 config/redis/maxconns 5`,
  http: true,
  flags: {
    acquire: boolFlag(
      "Obtain a lock on the key. If the key does not exist, this operation will create the key and " +
        "obtain the lock. The session must already exist and be specified via the -session flag. The " +
        "default value is false.",
    ),
    base64: boolFlag("Treat the data as base 64 encoded. The default value is false."),
    cas: boolFlag(
      "Perform a Check-And-Set operation. Specifying this value also requires the -modify-index flag " +
        "to be set. The default value is false.",
    ),
    flags: uint64Flag(
      "Unsigned integer value to assign to this key-value pair. This value is not read by Cairn, so " +
        "clients can use this value however makes sense for their use case. The default value is 0 (no flags).",
    ),
    "modify-index": uint64Flag(
      "Unsigned integer representing the ModifyIndex of the key. This is used in combination with the -cas flag.",
    ),
    release: boolFlag(
      "Forfeit the lock on the key at the given path. This requires the -session flag to be set. The " +
        "key must be held by the session in order to be unlocked. The default value is false.",
    ),
    session: stringFlag(
      "User-defined identifier for this session as a string. This is commonly used with the -acquire " +
        "and -release operations to build robust locking, but it can be set on any key. The default " +
        "value is empty (no session).",
    ),
  },
  async run({ values: f, positionals }, { io, client }) {
    if (positionals.length === 0) {
      io.err("Error! Missing KEY argument");
      return 1;
    }
    if (positionals.length > 2) {
      io.err(`Error! Too many arguments (expected 1 or 2, got ${positionals.length})`);
      return 1;
    }
    const key = positionals[0]!;
    let data: Buffer;
    try {
      data = positionals[1] === undefined ? Buffer.alloc(0) : await loadDataSource(positionals[1], io);
    } catch (err) {
      io.err(`Error! ${errorText(err)}`);
      return 1;
    }
    if (f.base64) {
      const text = data.toString("utf8").trim();
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) {
        io.err("Error! Cannot base 64 decode data: illegal base64 data");
        return 1;
      }
      data = Buffer.from(text, "base64");
    }
    if ((f.release || f.acquire) && f.session === "") {
      io.err("Error! Missing -session (required with -acquire and -release)");
      return 1;
    }
    const kv = new KvApi(client());
    const flags = f.flags === 0n ? undefined : f.flags;
    try {
      if (f.cas) {
        const ok = await kv.put({ key, value: data, flags, cas: f["modify-index"] });
        if (!ok && f["modify-index"] === 0n) {
          io.err(`Error! Did not write to ${key}: CAS performed with index=0 and key already exists.`);
          return 1;
        }
        if (!ok) {
          io.err(`Error! Did not write to ${key}: CAS failed`);
          return 1;
        }
        io.out(`Success! Data written to: ${key}`);
        return 0;
      }
      if (f.acquire) {
        if (!(await kv.put({ key, value: data, flags, acquire: f.session }))) {
          io.err("Error! Did not acquire lock");
          return 1;
        }
        io.out(`Success! Lock acquired on: ${key}`);
        return 0;
      }
      if (f.release) {
        if (!(await kv.put({ key, value: data, flags, release: f.session }))) {
          io.err("Error! Did not release lock");
          return 1;
        }
        io.out(`Success! Lock released on: ${key}`);
        return 0;
      }
      await kv.put({ key, value: data, flags });
      io.out(`Success! Data written to: ${key}`);
      return 0;
    } catch (err) {
      io.err(
        f.cas
          ? `Error! Did not write to ${key}: ${errorText(err)}`
          : `Error! Failed writing data: ${errorText(err)}`,
      );
      return 1;
    }
  },
});

const del = defineCommand({
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

const exportCommand = defineCommand({
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

interface ImportEntry {
  key: string;
  flags: bigint;
  value: string;
}

/** The `consul kv export` format, read as Go's decoder reads it (field names case-insensitive). */
export function decodeExport(text: string): ImportEntry[] {
  const body = parseJson(text);
  if (!Array.isArray(body)) throw new Error("expected a JSON array of {key, flags, value} objects");
  return body.map((item, i) => {
    if (!isObject(item)) throw new Error(`entry ${i} is not an object`);
    const key = field(item, "key") ?? "";
    const flags = field(item, "flags") ?? 0;
    const value = field(item, "value") ?? "";
    if (typeof key !== "string") throw new Error(`entry ${i}: key is not a string`);
    if (typeof value !== "string") throw new Error(`entry ${i}: value is not a string`);
    const okFlags =
      (typeof flags === "bigint" && flags >= 0n && flags < 1n << 64n) ||
      (typeof flags === "number" && Number.isInteger(flags) && flags >= 0);
    if (!okFlags) throw new Error(`entry ${i}: flags is not an unsigned 64-bit integer`);
    return { key, flags: BigInt(flags), value };
  });
}

const importCommand = defineCommand({
  synopsis: "Imports a tree stored as JSON to the KV store",
  usage: `
Usage: cairn kv import [DATA]

  Imports key-value pairs to the key-value store from the JSON representation
  generated by the "cairn kv export" command (or "consul kv export").

      $ cairn kv import @filename.json
      $ cat filename.json | cairn kv import -`,
  http: true,
  flags: { prefix: stringFlag("Key prefix for imported data") },
  async run({ values: f, positionals }, { io, client }) {
    if (positionals.length === 0) {
      io.err("Error! Missing DATA argument");
      return 1;
    }
    if (positionals.length > 1) {
      io.err(`Error! Too many arguments (expected 1, got ${positionals.length})`);
      return 1;
    }
    if (positionals[0] === "") {
      io.err("Error! Empty DATA argument");
      return 1;
    }
    let entries: ImportEntry[];
    try {
      const data = await loadDataSource(positionals[0]!, io);
      try {
        entries = decodeExport(data.toString("utf8"));
      } catch (err) {
        io.err(`Cannot unmarshal data: ${errorText(err)}`);
        return 1;
      }
    } catch (err) {
      io.err(`Error! ${errorText(err)}`);
      return 1;
    }
    // Decode every value before the first write, so bad input changes nothing.
    const writes = [];
    for (const entry of entries) {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(entry.value) || entry.value.length % 4 !== 0) {
        io.err(`Error base 64 decoding value for key ${entry.key}: illegal base64 data`);
        return 1;
      }
      let key = joinPath(f.prefix, entry.key);
      if (entry.key.endsWith("/")) key += "/";
      writes.push({ key, flags: entry.flags, value: Buffer.from(entry.value, "base64") });
    }
    const kv = new KvApi(client());
    for (const w of writes) {
      try {
        await kv.put({ key: w.key, value: w.value, flags: w.flags === 0n ? undefined : w.flags });
      } catch (err) {
        io.err(`Error! Failed writing data for key ${w.key}: ${errorText(err)}`);
        return 1;
      }
      io.out(`Imported: ${w.key}`);
    }
    return 0;
  },
});

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
  { get, put, delete: del, export: exportCommand, import: importCommand },
);
