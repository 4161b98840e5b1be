// `cairn snapshot save|restore|inspect`, as `consul snapshot`.
import { randomBytes } from "node:crypto";
import { open, readFile, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import type { Readable } from "node:stream";
import { type Command, commandGroup, defineCommand, errorText } from "../command.js";
import { formatTable } from "../format.js";
import { type JsonValue, stringifyGo } from "../json.js";
import { verifySnapshot } from "../snapshot-archive.js";

function oneFile(positionals: string[], io: { err(t: string): void }): string | undefined {
  if (positionals.length === 0) io.err("Missing FILE argument");
  else if (positionals.length > 1) io.err(`Too many arguments (expected 1, got ${positionals.length})`);
  else return positionals[0];
  return undefined;
}

/** Writes `body` to `path` so that `path` is either the old file or the whole new one, fsynced. */
async function writeAtomically(path: string, body: Readable): Promise<void> {
  const temp = `${path}.${randomBytes(4).toString("hex")}.tmp`;
  const handle = await open(temp, "wx", 0o600);
  try {
    for await (const chunk of body) await handle.write(chunk as Buffer);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await rm(temp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    verifySnapshot(await readFile(temp));
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw new Error(`Error verifying snapshot file: ${errorText(err)}`);
  }
  const dir = await open(dirname(path), "r");
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

const save = defineCommand({
  synopsis: "Saves snapshot of Cairn server state",
  usage: `
Usage: cairn snapshot save [options] FILE

  Retrieves an atomic, point-in-time snapshot of the state of the Cairn servers
  which includes key/value entries, service catalog, prepared queries, sessions,
  and ACLs. The file is written atomically and verified before it is kept.

    $ cairn snapshot save backup.snap
    $ cairn snapshot save -stale backup.snap`,
  http: true,
  flags: {},
  async run({ positionals }, { io, client }) {
    const file = oneFile(positionals, io);
    if (file === undefined) return 1;
    let index: bigint;
    let body: Readable;
    try {
      const res = await client().request("GET", "/v1/snapshot", { read: true });
      index = res.index;
      body = res.stream;
    } catch (err) {
      io.err(`Error saving snapshot: ${errorText(err)}`);
      return 1;
    }
    try {
      await writeAtomically(file, body);
    } catch (err) {
      io.err(
        errorText(err).startsWith("Error")
          ? errorText(err)
          : `Error writing snapshot file: ${errorText(err)}`,
      );
      return 1;
    }
    io.out(`Saved and verified snapshot to index ${index}`);
    return 0;
  },
});

const restore = defineCommand({
  synopsis: "Restores snapshot of Cairn server state",
  usage: `
Usage: cairn snapshot restore [options] FILE

  Restores an atomic, point-in-time snapshot of the state of the Cairn servers
  which includes key/value entries, service catalog, prepared queries, sessions,
  and ACLs. Restores involve a potentially dangerous low-level Raft operation
  that is not designed to handle server failures during a restore.

    $ cairn snapshot restore backup.snap`,
  http: true,
  flags: {},
  async run({ positionals }, { io, client }) {
    const file = oneFile(positionals, io);
    if (file === undefined) return 1;
    let data: Buffer;
    try {
      data = await readFile(file);
    } catch (err) {
      io.err(`Error opening snapshot file: ${errorText(err)}`);
      return 1;
    }
    try {
      (await client().request("PUT", "/v1/snapshot", { body: data })).discard();
    } catch (err) {
      io.err(`Error restoring snapshot: ${errorText(err)}`);
      return 1;
    }
    io.out("Restored snapshot");
    return 0;
  },
});

const inspect = defineCommand({
  synopsis: "Displays information about a Cairn snapshot file",
  usage: `
Usage: cairn snapshot inspect [options] FILE

  Verifies a snapshot file and displays its size and, when the archive carries
  one, its metadata (ID, Index, Term, Version).

    $ cairn snapshot inspect backup.snap`,
  http: false,
  flags: {},
  async run({ positionals }, { io }) {
    const file = oneFile(positionals, io);
    if (file === undefined) return 1;
    try {
      const info = verifySnapshot(await readFile(file));
      const rows: string[][] = [[" ID", metaText(info.meta?.ID)]];
      rows.push([" Size", String(info.size)]);
      for (const name of ["Index", "Term", "Version"]) rows.push([` ${name}`, metaText(info.meta?.[name])]);
      io.out(formatTable(rows));
      return 0;
    } catch (err) {
      io.err(`Error verifying snapshot: ${errorText(err)}`);
      return 1;
    }
  },
});

function metaText(v: JsonValue | undefined): string {
  if (v === undefined) return "-";
  return typeof v === "string" ? v : stringifyGo(v);
}

export const snapshotCommand: Command = commandGroup(
  "Saves, restores and inspects snapshots of Cairn server state",
  `
Usage: cairn snapshot <subcommand> [options] [args]

  This command has subcommands for saving, restoring, and inspecting the state
  of the Cairn servers for disaster recovery. These are atomic, point-in-time
  snapshots which include key/value entries, service catalog, prepared queries,
  sessions, and ACLs.

      $ cairn snapshot save backup.snap
      $ cairn snapshot restore backup.snap
      $ cairn snapshot inspect backup.snap`,
  { save, restore, inspect },
);
