import { z } from "zod";

/** Request bodies of the auth-method, binding-rule and login endpoints (Consul's field names). */

const str = z.string().nullish();

export const authMethodBody = z.object({
  Name: str,
  Type: str,
  Description: str,
  DisplayName: str,
  MaxTokenTTL: z.union([z.string(), z.number(), z.bigint()]).nullish(),
  TokenLocality: str,
  Config: z.record(z.string(), z.unknown()).nullish(),
  Namespace: str,
  NamespaceRules: z.array(z.object({ Selector: str, BindNamespace: str })).nullish(),
});
export type AuthMethodBody = z.output<typeof authMethodBody>;

export const bindingRuleBody = z.object({
  ID: str,
  Description: str,
  AuthMethod: str,
  Selector: str,
  BindType: str,
  BindName: str,
  Namespace: str,
});
export type BindingRuleBody = z.output<typeof bindingRuleBody>;

export const loginBody = z.object({
  AuthMethod: str,
  BearerToken: str,
  Meta: z.record(z.string(), z.string()).nullish(),
  Namespace: str,
});

export const oidcAuthUrlBody = z.object({
  AuthMethod: str,
  RedirectURI: str,
  ClientNonce: str,
  Meta: z.record(z.string(), z.string()).nullish(),
  Namespace: str,
});

export const oidcCallbackBody = z.object({
  AuthMethod: str,
  State: str,
  Code: str,
  ClientNonce: str,
  Namespace: str,
});
