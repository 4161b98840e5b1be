import { DurationError, formatDuration, parseDurationMs } from "@cairn/duration";
import type { AuthMethod, AuthMethodSpec, NamespaceRule } from "@cairn/fsm";
import { badRequest } from "../http/errors.js";
import {
  AUTH_METHOD_TYPES,
  type AuthMethodType,
  ConfigError,
  identityFields,
  identityVariables,
  isAuthMethodType,
  validateConfig,
} from "./config.js";
import type { AuthMethodBody } from "./schemas.js";
import { type FieldKinds, parseSelector, SelectorError } from "./selector.js";
import { interpolate, TemplateError } from "./template.js";

/** A validated auth method from a create or update body (spec 1 and Consul's AuthMethodSet checks). */

const NAME = /^[A-Za-z0-9_-]{1,128}$/;
const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

const invalid = (reason: string) => badRequest(`Invalid Auth Method: ${reason}`);

function maxTokenTtl(raw: AuthMethodBody["MaxTokenTTL"]): number {
  if (raw == null || raw === "") return 0;
  let ms: number;
  if (typeof raw === "string") {
    try {
      ms = parseDurationMs(raw);
    } catch (err) {
      if (err instanceof DurationError) throw invalid(`MaxTokenTTL: invalid duration "${raw}"`);
      throw err;
    }
  } else {
    ms = Number(raw) / 1e6;
  }
  if (ms === 0) return 0;
  if (ms > DAY_MS) throw badRequest(`MaxTokenTTL ${formatDuration(ms * 1e6)} cannot be more than 24h0m0s`);
  if (ms < MINUTE_MS) throw badRequest(`MaxTokenTTL ${formatDuration(ms * 1e6)} cannot be less than 1m0s`);
  return Math.trunc(ms);
}

/** Values a template is checked with: every variable set, as Consul does with "fake". */
export function sampleVars(fields: FieldKinds): Record<string, string> {
  return Object.fromEntries(identityVariables(fields).map((name) => [name, "fake"]));
}

function namespaceRules(body: AuthMethodBody, ns: string, fields: FieldKinds): NamespaceRule[] {
  const rules = body.NamespaceRules ?? [];
  if (rules.length > 0 && ns !== "default") {
    throw invalid("NamespaceRules require the auth method to be in the default namespace");
  }
  return rules.map((r, i) => {
    const at = `NamespaceRules[${i}]`;
    const rule = { Selector: r.Selector ?? "", BindNamespace: r.BindNamespace ?? "" };
    if (rule.BindNamespace === "") throw invalid(`${at}.BindNamespace is required`);
    try {
      parseSelector(rule.Selector, fields);
    } catch (err) {
      if (err instanceof SelectorError) throw invalid(`${at}.Selector is invalid: ${err.message}`);
      throw err;
    }
    try {
      interpolate(rule.BindNamespace, sampleVars(fields));
    } catch (err) {
      if (err instanceof TemplateError) throw invalid(`${at}.BindNamespace is invalid: ${err.message}`);
      throw err;
    }
    return rule;
  });
}

export function authMethodSpec(
  body: AuthMethodBody,
  existing: AuthMethod | undefined,
  ns: string,
): AuthMethodSpec {
  const name = body.Name ?? "";
  if (name === "") throw invalid("no Name is set");
  if (!NAME.test(name)) throw invalid("invalid Name. Only alphanumeric characters, '-' and '_' are allowed");
  let type = body.Type ?? "";
  if (existing) {
    if (type === "") type = existing.Type;
    else if (type !== existing.Type) throw badRequest("the Type field of an Auth Method is immutable");
  }
  if (!isAuthMethodType(type)) throw invalid(`Type should be one of: [${AUTH_METHOD_TYPES.join(" ")}]`);
  const ttl = maxTokenTtl(body.MaxTokenTTL);
  if (type === "oidc" && ttl === 0) throw invalid('MaxTokenTTL must be set for type "oidc"');
  const locality = body.TokenLocality ?? "";
  if (locality !== "" && locality !== "local" && locality !== "global") {
    throw invalid("TokenLocality should be one of 'local' or 'global'");
  }
  if (body.Config == null) throw invalid("Config is required");
  const config = body.Config;
  let fields: FieldKinds;
  try {
    validateConfig(type as AuthMethodType, config);
    fields = identityFields(type, config);
  } catch (err) {
    if (err instanceof ConfigError) throw invalid(err.message);
    throw err;
  }
  return {
    Name: name,
    Type: type,
    Description: body.Description ?? "",
    DisplayName: body.DisplayName ?? "",
    MaxTokenTTL: ttl,
    TokenLocality: locality,
    Config: config,
    Namespace: ns,
    NamespaceRules: namespaceRules(body, ns, fields),
  };
}

/** Consul's JSON for a method; list entries leave out Config and NamespaceRules. */
export function authMethodJson(m: AuthMethod, entry: "full" | "stub"): Record<string, unknown> {
  const out: Record<string, unknown> = { Name: m.Name, Type: m.Type };
  if (m.DisplayName !== "") out.DisplayName = m.DisplayName;
  out.Description = m.Description;
  if (m.MaxTokenTTL !== 0) out.MaxTokenTTL = formatDuration(m.MaxTokenTTL * 1e6);
  if (m.TokenLocality !== "") out.TokenLocality = m.TokenLocality;
  if (entry === "full") {
    out.Config = m.Config;
    if (m.NamespaceRules.length > 0) out.NamespaceRules = m.NamespaceRules;
  }
  out.Namespace = m.Namespace;
  out.CreateIndex = m.CreateIndex;
  out.ModifyIndex = m.ModifyIndex;
  return out;
}
