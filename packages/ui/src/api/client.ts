import { ApiError } from "./errors";
import { queryString } from "./paths";
import { getToken } from "./token";

export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

export interface ApiRequest {
  method?: "GET" | "PUT" | "POST" | "DELETE";
  query?: Query;
  /** A JSON value, or a string sent as is (KV values). */
  body?: unknown;
  signal?: AbortSignal;
  /** A 404 is an answer (data null, with its index), as for a KV key or folder that does not exist. */
  allowNotFound?: boolean;
}

export interface ApiResponse<T> {
  data: T;
  /** X-Consul-Index, when the endpoint gives one. */
  index: number | undefined;
  headers: Headers;
}

/**
 * One request to the HTTP API (`path` starts with `/v1/`, built with `v1()`), with the stored token. JSON
 * answers are parsed, others returned as text; a non-2xx answer throws an ApiError carrying the reason text.
 */
export async function api<T>(path: string, request: ApiRequest = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = {};
  const token = getToken();
  if (token !== "") headers["X-Consul-Token"] = token;
  let body: string | undefined;
  if (request.body !== undefined) {
    body = typeof request.body === "string" ? request.body : JSON.stringify(request.body);
    if (typeof request.body !== "string") headers["Content-Type"] = "application/json";
  }
  const url = path + queryString(request.query ?? {});
  const init: RequestInit = { method: request.method ?? "GET", headers, cache: "no-store" };
  if (body !== undefined) init.body = body;
  if (request.signal) init.signal = request.signal;
  const res = await fetch(url, init);
  const text = await res.text();
  const notFound = res.status === 404 && request.allowNotFound === true;
  if (!res.ok && !notFound) throw new ApiError(res.status, text.trim() || res.statusText, path);
  const type = res.headers.get("Content-Type") ?? "";
  const data = (notFound ? null : type.includes("json") && text !== "" ? JSON.parse(text) : text) as T;
  const raw = res.headers.get("X-Consul-Index");
  const index = raw === null ? undefined : Number(raw);
  return {
    data,
    index: index !== undefined && Number.isFinite(index) ? index : undefined,
    headers: res.headers,
  };
}
