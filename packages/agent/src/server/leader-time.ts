import { type Command, decodeCommand, encodeCommand } from "@cairn/fsm";
import { isRestoreEntry } from "./restore-entry.js";

/**
 * Commands whose effect depends on the time (lock-delay, session and token creation, invalidations, catalog
 * changes that invalidate sessions, namespace deletion). All of them carry it in one top-level `now`.
 */
export type TimedCommand = Extract<Command, { readonly now: number }>;

/**
 * The command with its time taken from the leader's clock. The API stamps `now` on whichever server
 * received the request; with clocks that disagree, lock-delay and creation times would then depend on
 * which server a client talked to. The leader proposes every entry, so its clock is the one time source,
 * as in Consul.
 */
export function stampLeaderTime(command: Command, now: number): Command {
  return "now" in command ? { ...command, now } : command;
}

/** The msgpack key "now" (a fixstr): a command without these bytes has no time to stamp. */
const NOW_KEY = Buffer.from([0xa3, 0x6e, 0x6f, 0x77]);

/**
 * The entry bytes a follower forwarded, re-stamped. Only timed commands are decoded and encoded again (a
 * byte search spares untimed writes the decode); restore entries and anything undecodable go through
 * unchanged (the state machine refuses the latter).
 */
export function stampForwardedEntry(entry: Uint8Array, now: number): Uint8Array {
  if (isRestoreEntry(entry)) return entry;
  if (Buffer.from(entry.buffer, entry.byteOffset, entry.byteLength).indexOf(NOW_KEY) < 0) return entry;
  let command: Command;
  try {
    command = decodeCommand(entry);
  } catch {
    return entry;
  }
  return "now" in command ? encodeCommand(stampLeaderTime(command, now)) : entry;
}
