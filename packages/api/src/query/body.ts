import { z } from "zod";

/**
 * Body of POST /v1/query and PUT /v1/query/:uuid (Consul's PreparedQuery). Field names match
 * case-insensitively; nulls read as Go's zero values.
 */
const text = z.string().nullish();
const strings = z.array(z.string()).nullish();
const stringMap = z.record(z.string(), z.string()).nullish();

export const serviceQueryBody = z.object({
  Service: text,
  Failover: z.object({ NearestN: z.number().int().nullish(), Datacenters: strings }).nullish(),
  IgnoreCheckIDs: strings,
  OnlyPassing: z.boolean().nullish(),
  Near: text,
  Tags: strings,
  NodeMeta: stringMap,
  ServiceMeta: stringMap,
  Connect: z.boolean().nullish(),
});

export const preparedQueryBody = z.object({
  ID: text,
  Name: text,
  Session: text,
  Token: text,
  Template: z.object({ Type: text, Regexp: text, RemoveEmptyTags: z.boolean().nullish() }).nullish(),
  Service: serviceQueryBody.nullish(),
  DNS: z.object({ TTL: text }).nullish(),
});

export type PreparedQueryBody = z.output<typeof preparedQueryBody>;
