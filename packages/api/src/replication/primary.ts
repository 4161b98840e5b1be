import { type JsonValue, readJson } from "@cairn/json";

/** One read from the primary datacenter: its body and the X-Consul-Index it answered with. */
export interface PrimaryRead {
  readonly index: number;
  readonly body: JsonValue;
}

/**
 * A GET of the primary datacenter's HTTP API (path with query string, without `dc`), carrying the
 * replication token. Throws on anything but a 200, with the primary's reason.
 */
export type PrimaryFetch = (path: string) => Promise<PrimaryRead>;

/**
 * A PrimaryFetch over anything that answers a Request for another datacenter: the `dc` forwarding in a
 * server, or a primary's own app in tests.
 */
export function primaryFetchOver(
  send: (request: Request) => Promise<Response>,
  primary: string,
  token: () => string | undefined,
): PrimaryFetch {
  return async (path) => {
    const sep = path.includes("?") ? "&" : "?";
    const headers = new Headers();
    const secret = token();
    if (secret) headers.set("X-Consul-Token", secret);
    const url = `http://primary${path}${sep}dc=${encodeURIComponent(primary)}`;
    const response = await send(new Request(url, { headers }));
    const text = await response.text();
    if (response.status !== 200) {
      throw new Error(
        `primary datacenter ${primary} answered ${response.status} for ${path}: ${text.trim()}`,
      );
    }
    const index = Number(response.headers.get("X-Consul-Index") ?? "0");
    return { index: Number.isFinite(index) ? index : 0, body: readJson(text) };
  };
}
