/** Values are held as latin1 strings (one char per byte); see KvRecord. */
export function toBinaryString(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}

export function fromBinaryString(value: string): Uint8Array {
  return Buffer.from(value, "latin1");
}
