// Typed calls on /v1/session, for the sessions `cairn lock` holds its locks with.
import type { HttpClient } from "./http.js";
import { asString, field, isObject, parseJson } from "./json.js";

export interface SessionSpec {
  name: string;
  ttl: string;
  behavior: "release" | "delete";
}

export class SessionApi {
  constructor(private readonly http: HttpClient) {}

  async create(spec: SessionSpec, signal?: AbortSignal): Promise<string> {
    const body = await this.http.json("PUT", "/v1/session/create", {
      body: JSON.stringify({ Name: spec.name, TTL: spec.ttl, Behavior: spec.behavior }),
      signal,
    });
    const id = isObject(body) ? field(body, "ID") : undefined;
    if (typeof id !== "string" || id === "") throw new Error("session create returned no ID");
    return id;
  }

  /** Renews the session; returns the TTL the server granted, or undefined when the session is gone. */
  async renew(id: string): Promise<string | undefined> {
    const res = await this.http.request("PUT", `/v1/session/renew/${encodeURIComponent(id)}`, {
      accept: [404],
    });
    if (res.status === 404) {
      res.discard();
      return undefined;
    }
    const body = parseJson(await res.text());
    const first = Array.isArray(body) ? body[0] : undefined;
    if (!isObject(first)) return undefined;
    return asString(field(first, "TTL"));
  }

  async destroy(id: string): Promise<void> {
    (await this.http.request("PUT", `/v1/session/destroy/${encodeURIComponent(id)}`)).discard();
  }
}
