/**
 * Commands are the only way state changes. They are deterministic: anything that depends on time or
 * randomness (`now` in ms since the epoch, session IDs) is decided by the leader before proposing and
 * travels inside the command. `ns` defaults to "default".
 */
export const COMMAND_VERSION = 1;

export interface Versioned {
  readonly v: typeof COMMAND_VERSION;
}
