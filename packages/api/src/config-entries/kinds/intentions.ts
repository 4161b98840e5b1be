import { httpHeaderMatch, int, list, metaError, obj, str, stringMap, strings } from "../fields.js";
import { defineKind, entryBase, z } from "./common.js";
import { HTTP_METHODS, headerMatchError } from "./discovery-chain.js";

/** service-intentions: who may call the service named by the entry. */

const action = z.string().optional();

const intentions = z.object({
  ...entryBase,
  Sources: list(
    z.object({
      Name: str,
      Peer: str,
      Namespace: str,
      SamenessGroup: str,
      Action: action,
      Permissions: list(
        z.object({
          Action: action,
          HTTP: obj({
            PathExact: str,
            PathPrefix: str,
            PathRegex: str,
            Header: list(httpHeaderMatch),
            Methods: strings,
          }),
        }),
      ),
      // Computed from the names; whatever the client sends is replaced.
      Precedence: int,
      Type: str,
      Description: str,
      LegacyID: str,
      LegacyMeta: stringMap,
      LegacyCreateTime: str,
      LegacyUpdateTime: str,
    }),
  ),
});

type Source = NonNullable<z.output<typeof intentions>["Sources"]>[number];

/**
 * Consul's precedence table with namespaces: an exact destination outranks a wildcard one, then an exact
 * source outranks a wildcard one (9, 8 and 7 for an exact destination name; 6, 5 and 4 for a wildcard one).
 */
function precedence(destination: string, source: Source): number {
  const exactSourceNs = (source.Namespace ?? "") !== "*";
  const sourceRank = source.Name !== "*" ? 2 : exactSourceNs ? 1 : 0;
  return (destination !== "*" ? 7 : 4) + sourceRank;
}

const isAction = (a: string | undefined) => a === "allow" || a === "deny";

function permissionError(p: NonNullable<Source["Permissions"]>[number], at: string): string | undefined {
  if (!isAction(p.Action)) return `${at}.Action must be set to 'allow' or 'deny'`;
  const http = p.HTTP;
  if (!http) return `${at}.HTTP is required`;
  if (http.PathExact && !http.PathExact.startsWith("/"))
    return `${at}.HTTP.PathExact doesn't start with '/': "${http.PathExact}"`;
  if (http.PathPrefix && !http.PathPrefix.startsWith("/"))
    return `${at}.HTTP.PathPrefix doesn't start with '/': "${http.PathPrefix}"`;
  if ([http.PathExact, http.PathPrefix, http.PathRegex].filter(Boolean).length > 1)
    return `${at}.HTTP should only contain at most one of PathExact, PathPrefix, or PathRegex`;
  for (const [k, h] of (http.Header ?? []).entries()) {
    const err = headerMatchError(h, `${at}.HTTP.Header[${k}]`);
    if (err) return err;
  }
  const seen = new Set<string>();
  for (const m of http.Methods ?? []) {
    if (!HTTP_METHODS.has(m)) return `${at}.HTTP.Methods contains an invalid method "${m}"`;
    if (seen.has(m)) return `${at}.HTTP.Methods contains "${m}" more than once`;
    seen.add(m);
  }
  if (!http.PathExact && !http.PathPrefix && !http.PathRegex && !http.Header?.length && !http.Methods?.length)
    return `${at}.HTTP should not be empty`;
  return undefined;
}

export const serviceIntentionsKind = defineKind({
  schema: intentions,
  normalize(e) {
    const sources = e.Sources ?? [];
    for (const s of sources) {
      s.Type = s.Type || "consul";
      s.LegacyID = undefined;
      s.Precedence = precedence(e.Name ?? "", s);
      for (const p of s.Permissions ?? []) {
        const methods = p.HTTP?.Methods;
        if (methods && p.HTTP) p.HTTP.Methods = methods.map((m) => m.toUpperCase());
      }
    }
    // Highest precedence first, keeping the written order among equals.
    e.Sources = sources
      .map((s, i) => ({ s, i }))
      .sort((a, b) => (b.s.Precedence ?? 0) - (a.s.Precedence ?? 0) || a.i - b.i)
      .map(({ s }) => s);
  },
  validate(e) {
    const meta = metaError(e.Meta);
    if (meta) return meta;
    if (e.Name !== "*" && e.Name?.includes("*"))
      return "Name: wildcard character '*' cannot be used with partial values";
    const seen = new Set<string>();
    for (const [i, s] of (e.Sources ?? []).entries()) {
      const at = `Sources[${i}]`;
      if (!s.Name) return `${at}.Name is required`;
      if (s.Name !== "*" && s.Name.includes("*"))
        return `${at}.Name: wildcard character '*' cannot be used with partial values`;
      if ((s.Description ?? "").length > 512) return `${at}.Description exceeds maximum length 512`;
      if (s.LegacyMeta && Object.keys(s.LegacyMeta).length > 0) return `${at}.LegacyMeta must be omitted`;
      if (s.LegacyCreateTime) return `${at}.LegacyCreateTime must be omitted`;
      if (s.LegacyUpdateTime) return `${at}.LegacyUpdateTime must be omitted`;
      const permissions = s.Permissions ?? [];
      if (permissions.length === 0 && !isAction(s.Action))
        return `${at}.Action must be set to 'allow' or 'deny'`;
      if (permissions.length > 0 && s.Action)
        return `${at}.Action must be omitted if Permissions are specified`;
      if (e.Name === "*" && permissions.length > 0)
        return `${at}.Permissions cannot be specified on intentions with wildcarded destinations`;
      if (s.Type !== "consul") return `${at}.Type must be set to 'consul'`;
      for (const [j, p] of permissions.entries()) {
        const err = permissionError(p, `${at}.Permissions[${j}]`);
        if (err) return err;
      }
      const key = JSON.stringify([s.Peer ?? "", s.Namespace ?? "", s.Name, s.SamenessGroup ?? ""]);
      if (seen.has(key))
        return `${at} defines "${s.Namespace ? `${s.Namespace}/` : ""}${s.Name}" more than once`;
      seen.add(key);
    }
    return undefined;
  },
});
