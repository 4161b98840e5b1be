/** A refused keyring change, in memberlist's words. */
export class KeyringError extends Error {
  override readonly name = "KeyringError";
}

const KEY_SIZES = [16, 24, 32];

/** Parses a base64 key as Consul's -encrypt: 16, 24 or 32 bytes (AES-128/192/256). */
export function parseKey(base64: string): Buffer {
  const key = Buffer.from(base64, "base64");
  if (!KEY_SIZES.includes(key.length) || key.toString("base64") !== base64.replace(/\s/g, "")) {
    throw new KeyringError("gossip encryption key must be base64 of 16, 24 or 32 bytes");
  }
  return key;
}

/**
 * memberlist's keyring: the installed gossip keys, the primary one first. Frames are sealed with the primary
 * key and opened with any installed key, so a new key can be installed everywhere, made primary, and the old
 * one removed without members ever failing to understand each other.
 */
export class Keyring {
  private keys: Buffer[];

  /** `keys` as base64, the primary first. */
  constructor(keys: readonly string[]) {
    if (keys.length === 0) throw new KeyringError("a keyring needs at least one key");
    this.keys = [];
    for (const k of keys) {
      const key = parseKey(k);
      if (!this.keys.some((have) => have.equals(key))) this.keys.push(key);
    }
  }

  /** The key frames are sealed with. */
  get primary(): Buffer {
    return this.keys[0]!;
  }

  /** Every installed key, the primary first (the order frames are tried in). */
  get all(): readonly Buffer[] {
    return this.keys;
  }

  /** Base64 of the installed keys, the primary first. */
  list(): string[] {
    return this.keys.map((k) => k.toString("base64"));
  }

  primaryKey(): string {
    return this.primary.toString("base64");
  }

  /** Adds a key for receiving (a no-op when it is installed already). */
  install(base64: string): void {
    const key = parseKey(base64);
    if (!this.keys.some((k) => k.equals(key))) this.keys.push(key);
  }

  /** Makes an installed key the primary one. */
  use(base64: string): void {
    const key = parseKey(base64);
    const at = this.keys.findIndex((k) => k.equals(key));
    if (at < 0) throw new KeyringError("Requested key is not in the keyring");
    this.keys = [key, ...this.keys.filter((_, i) => i !== at)];
  }

  /** Drops a key (a no-op when it is not installed); the primary key cannot be removed. */
  remove(base64: string): void {
    const key = parseKey(base64);
    if (this.primary.equals(key)) throw new KeyringError("Removing the primary key is not allowed");
    this.keys = this.keys.filter((k) => !k.equals(key));
  }
}
