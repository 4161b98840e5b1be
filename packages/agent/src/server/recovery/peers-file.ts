import type { RecoveryMember } from "@cairn/raft";

/** `raft/peers.json` cannot be used; the server refuses to start rather than guess. */
export class PeersFileError extends Error {
  override readonly name = "PeersFileError";
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`${file}: ${reason}`);
  }
}

const FIELDS = new Set(["id", "address", "non_voter"]);

/** host:port with a port in 1..65535 (IPv6 hosts in brackets). */
function isHostPort(address: string): boolean {
  const colon = address.lastIndexOf(":");
  if (colon <= 0) return false;
  const host = address.slice(0, colon);
  const port = address.slice(colon + 1);
  if (!/^[0-9]{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) return false;
  if (host.startsWith("[")) return host.endsWith("]") && host.length > 2;
  return !host.includes(":") && !/\s/.test(host);
}

function member(v: unknown, at: number, file: string): RecoveryMember {
  const fail = (reason: string) => new PeersFileError(file, `server ${at}: ${reason}`);
  if (typeof v === "string") {
    // Raft protocol 2 listed addresses only; Cairn's servers are known by id.
    throw new PeersFileError(
      file,
      'lists bare addresses (the old version-2 format); write one object per server instead: [{"id": "<content of data_dir/node-id>", "address": "<ip>:<server port>", "non_voter": false}]',
    );
  }
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw fail('must be an object {"id", "address", "non_voter"}');
  const o = v as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    // A misspelt "non_voter" silently read as a voter would change the quorum the operator meant.
    if (!FIELDS.has(key)) throw fail(`unknown field "${key}" (allowed: id, address, non_voter)`);
  }
  if (typeof o.id !== "string" || o.id.trim() === "") throw fail('"id" must be a non-empty string');
  if (typeof o.address !== "string" || !isHostPort(o.address))
    throw fail(`"address" must be "host:port", got ${JSON.stringify(o.address)}`);
  if (o.non_voter !== undefined && typeof o.non_voter !== "boolean")
    throw fail('"non_voter" must be true or false');
  return { id: o.id, address: o.address, voter: o.non_voter !== true };
}

/**
 * Reads Consul's raft protocol 3 `peers.json` (as hashicorp/raft's ReadConfigJSON does):
 * `[{"id": "...", "address": "host:port", "non_voter": false}]`. Refuses anything a recovered cluster
 * could not run on, and a file that leaves this server (`selfId`) out: it could never take part.
 */
export function parsePeersFile(text: string, file: string, selfId: string): RecoveryMember[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new PeersFileError(file, `not valid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new PeersFileError(file, "must be a JSON array of servers");
  if (parsed.length === 0) throw new PeersFileError(file, "lists no server");
  const members = parsed.map((v, i) => member(v, i, file));
  const ids = new Set<string>();
  const addresses = new Set<string>();
  for (const m of members) {
    if (ids.has(m.id)) throw new PeersFileError(file, `server id ${m.id} is listed twice`);
    if (addresses.has(m.address)) throw new PeersFileError(file, `address ${m.address} is listed twice`);
    ids.add(m.id);
    addresses.add(m.address);
  }
  if (!members.some((m) => m.voter))
    throw new PeersFileError(file, 'lists no voter: at least one server needs "non_voter": false');
  if (!ids.has(selfId))
    throw new PeersFileError(
      file,
      `does not list this server (id ${selfId}, from data_dir/node-id); every server that starts with the file must be in it`,
    );
  return members;
}
