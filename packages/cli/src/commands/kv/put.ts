// `cairn kv put`, as `consul kv put`.
import { boolFlag, stringFlag, uint64Flag } from "../../args.js";
import { type Command, defineCommand, errorText } from "../../command.js";
import { KvApi } from "../../kv-api.js";
import { isBase64, loadDataSource } from "./data.js";

export const kvPut: Command = defineCommand({
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
      if (!isBase64(text)) {
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
