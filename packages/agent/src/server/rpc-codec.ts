import { Packr } from "msgpackr";

// Answers that carry state-machine values (KV flags are bigint, values are bytes) are packed here rather than
// left to the server RPC's frame encoder, which does not round-trip 64-bit integers.
const packr = new Packr({ useRecords: false, int64AsType: "bigint", mapsAsObjects: true });

export function packValue(value: unknown): Uint8Array {
  return packr.pack(value);
}

export function unpackValue(data: unknown): unknown {
  if (!(data instanceof Uint8Array)) throw new TypeError("rpc answer is not a packed value");
  return packr.unpack(data);
}

/** Names of the requests servers make of each other over the server RPC (`server-rpc/`). */
export const RPC = {
  apply: "cairn.apply",
  renewSession: "cairn.session.renew",
  ping: "cairn.ping",
  join: "cairn.join",
  raftConfiguration: "cairn.operator.configuration",
  removePeer: "cairn.operator.remove-peer",
  transferLeader: "cairn.operator.transfer-leader",
} as const;
