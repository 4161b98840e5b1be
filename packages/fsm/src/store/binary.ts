/** Values are held as latin1 strings (one char per byte); see KvRecord. */
export function toBinaryString(bytes: Uint8Array): string {
  // Decoded commands already hold Buffers; wrapping only plain Uint8Arrays saves an allocation per apply.
  const buffer = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return buffer.toString("latin1");
}

export function fromBinaryString(value: string): Uint8Array {
  return Buffer.from(value, "latin1");
}
