import { Packr } from "msgpackr";
import { CommandDecodeError } from "./errors.js";
import { isRaw } from "./fields.js";
import { handlerFor } from "./registry.js";
import { COMMAND_VERSION, type Command } from "./types.js";

// No records/structures: every message stands alone, so encoding is a pure function of the command.
// 64-bit integers decode as bigint (Flags stay exact); ordinary numbers stay numbers.
const packr = new Packr({ useRecords: false, int64AsType: "bigint", mapsAsObjects: true });

export function encodeCommand(command: Command): Uint8Array {
  return packr.pack(command);
}

/** Throws CommandDecodeError for anything that is not a well-formed command of a known type and version. */
export function decodeCommand(data: Uint8Array): Command {
  let raw: unknown;
  try {
    raw = packr.unpack(data);
  } catch (err) {
    throw new CommandDecodeError(`command is not valid msgpack: ${(err as Error).message}`);
  }
  if (!isRaw(raw)) throw new CommandDecodeError("command must be a msgpack map");
  if (raw.v !== COMMAND_VERSION) {
    throw new CommandDecodeError(
      `unsupported command version ${String(raw.v)} (this server applies ${COMMAND_VERSION})`,
    );
  }
  const handler = typeof raw.type === "string" ? handlerFor(raw.type) : undefined;
  if (!handler) throw new CommandDecodeError(`unknown command type "${String(raw.type)}"`);
  return handler.decode(raw);
}
