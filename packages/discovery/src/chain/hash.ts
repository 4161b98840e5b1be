/**
 * CustomizationHash as Consul computes it: mitchellh/hashstructure (v1) over the override values that
 * changed the chain, with 64-bit FNV-1, printed in hex and cut to 8 characters. Struct hashes XOR the
 * ordered hash of each field's name and value into the hash of the type's name; strings hash their bytes,
 * integers their 8 little-endian bytes.
 */

const MASK = (1n << 64n) - 1n;
const OFFSET = 14695981039346656037n;
const PRIME = 1099511628211n;

function fnv1(bytes: Uint8Array): bigint {
  let h = OFFSET;
  for (const b of bytes) h = ((h * PRIME) & MASK) ^ BigInt(b);
  return h;
}

const le64 = (v: bigint): Uint8Array => {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt.asUintN(64, v), true);
  return out;
};

const hashString = (s: string): bigint => fnv1(new TextEncoder().encode(s));
const hashInt64 = (v: bigint): bigint => fnv1(le64(v));
const hashOrdered = (a: bigint, b: bigint): bigint => {
  const bytes = new Uint8Array(16);
  bytes.set(le64(a), 0);
  bytes.set(le64(b), 8);
  return fnv1(bytes);
};

function hashStruct(typeName: string, fields: readonly [string, bigint][]): bigint {
  let h = hashString(typeName);
  for (const [name, value] of fields) h ^= hashOrdered(hashString(name), value);
  return h;
}

/** Unset values are their zero values: "" and 0. */
export function customizationHash(
  meshGatewayMode: string,
  protocol: string,
  connectTimeoutNanos: bigint,
): string {
  const h = hashStruct("", [
    ["OverrideMeshGateway", hashStruct("MeshGatewayConfig", [["Mode", hashString(meshGatewayMode)]])],
    ["OverrideProtocol", hashString(protocol)],
    ["OverrideConnectTimeout", hashInt64(connectTimeoutNanos)],
  ]);
  return h.toString(16).slice(0, 8);
}
