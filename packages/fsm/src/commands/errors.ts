/** Thrown by decodeCommand for bytes that are not a command this version understands. Nothing was applied. */
export class CommandDecodeError extends Error {
  override readonly name = "CommandDecodeError";
}
