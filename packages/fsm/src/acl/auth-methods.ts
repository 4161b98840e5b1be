import { CommandDecodeError } from "../commands/errors.js";
import { isRaw, obj, optInt, optList, optStr, type Raw, rawItem, str, strItem } from "../commands/fields.js";
import type { HandlerMap } from "../commands/handler.js";
import { COMMAND_VERSION, type Versioned } from "../commands/version.js";
import { type ApplyError, applyError } from "../store/errors.js";
import { joinKey } from "../store/keys.js";
import type { Tables } from "../store/tables.js";
import type { Tx } from "../store/tx.js";
import { deleteToken, tokensLinking } from "./writes.js";

/**
 * ACL auth methods and their binding rules (spec 1). The API validates each method's Config for its
 * Type and each rule's Selector and BindName; here they meet the checks that depend on the state: Type
 * never changes, a rule names a method that exists, deleting a method takes its rules and the tokens it
 * created with it (as Consul does).
 */

const v = COMMAND_VERSION;

export interface NamespaceRule {
  readonly Selector: string;
  readonly BindNamespace: string;
}

export interface AuthMethodSpec {
  readonly Name: string;
  readonly Type: string;
  readonly Description: string;
  readonly DisplayName: string;
  /** Milliseconds; 0 when unset. */
  readonly MaxTokenTTL: number;
  /** `local`, `global` or "" (local). */
  readonly TokenLocality: string;
  /** The validated, type-specific configuration as given (JSON values). */
  readonly Config: Readonly<Record<string, unknown>>;
  readonly Namespace: string;
  readonly NamespaceRules: readonly NamespaceRule[];
}

export interface AuthMethod extends AuthMethodSpec {
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

export interface BindingRuleSpec {
  readonly ID: string;
  readonly Description: string;
  readonly AuthMethod: string;
  readonly Selector: string;
  readonly BindType: string;
  readonly BindName: string;
  readonly Namespace: string;
}

export interface BindingRule extends BindingRuleSpec {
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

export interface AuthMethodSetCommand extends Versioned {
  readonly type: "acl.auth-method.set";
  readonly method: AuthMethodSpec;
}

export interface AuthMethodDeleteCommand extends Versioned {
  readonly type: "acl.auth-method.delete";
  readonly ns: string;
  readonly name: string;
}

export interface BindingRuleSetCommand extends Versioned {
  readonly type: "acl.binding-rule.set";
  readonly op: "create" | "update";
  readonly rule: BindingRuleSpec;
}

export interface BindingRuleDeleteCommand extends Versioned {
  readonly type: "acl.binding-rule.delete";
  readonly id: string;
}

export type AuthMethodCommand =
  | AuthMethodSetCommand
  | AuthMethodDeleteCommand
  | BindingRuleSetCommand
  | BindingRuleDeleteCommand;

export const AuthMethodChannels = {
  methods: "acl-auth-methods",
  rules: "acl-binding-rules",
} as const;

export const authMethodKey = (ns: string, name: string) => joinKey(ns, name);

function methodsChanged(tx: Tx): void {
  tx.tables.indexes.aclAuthMethods = tx.index;
  tx.touch(AuthMethodChannels.methods);
}

function rulesChanged(tx: Tx): void {
  tx.tables.indexes.aclBindingRules = tx.index;
  tx.touch(AuthMethodChannels.rules);
}

function putMethod(tx: Tx, spec: AuthMethodSpec): true | ApplyError {
  const t = tx.tables;
  if (spec.Name === "" || spec.Type === "") return applyError("Missing auth method Name or Type");
  const key = authMethodKey(spec.Namespace, spec.Name);
  const existing = t.aclAuthMethods.get(key);
  if (existing && existing.Type !== spec.Type)
    return applyError("the Type field of an Auth Method is immutable");
  t.aclAuthMethods.set(key, {
    ...spec,
    CreateIndex: existing?.CreateIndex ?? tx.index,
    ModifyIndex: tx.index,
  });
  methodsChanged(tx);
  return true;
}

/** The binding rules of one method, in ID order. */
export function rulesOf(t: Tables, ns: string, method: string): BindingRule[] {
  const out: BindingRule[] = [];
  t.aclBindingRules.forEach((r) => {
    if (r.Namespace === ns && r.AuthMethod === method) out.push(r);
  });
  return out;
}

function deleteMethod(tx: Tx, ns: string, name: string): boolean {
  const t = tx.tables;
  const key = authMethodKey(ns, name);
  if (!t.aclAuthMethods.has(key)) return false;
  const rules = rulesOf(t, ns, name);
  for (const r of rules) t.aclBindingRules.delete(r.ID);
  if (rules.length > 0) rulesChanged(tx);
  for (const accessor of tokensLinking(t, "m", ns, name)) deleteToken(tx, accessor);
  if (ns === "default") {
    // NamespaceRules (default-namespace methods only) put tokens in other namespaces: those with no
    // method of this name of their own came from this one.
    const placed: string[] = [];
    t.aclTokens.forEach((tok) => {
      if (
        tok.AuthMethod === name &&
        tok.Namespace !== ns &&
        !t.aclAuthMethods.has(authMethodKey(tok.Namespace, name))
      )
        placed.push(tok.AccessorID);
    });
    for (const accessor of placed) deleteToken(tx, accessor);
  }
  t.aclAuthMethods.delete(key);
  methodsChanged(tx);
  return true;
}

/** A purged namespace's methods (with their rules and tokens) and any rules left in it. */
export function purgeAuthMethods(tx: Tx, ns: string): void {
  const t = tx.tables;
  const names: string[] = [];
  t.aclAuthMethods.forEach((m) => {
    if (m.Namespace === ns) names.push(m.Name);
  });
  for (const name of names) deleteMethod(tx, ns, name);
  const rules: string[] = [];
  t.aclBindingRules.forEach((r) => {
    if (r.Namespace === ns) rules.push(r.ID);
  });
  for (const id of rules) t.aclBindingRules.delete(id);
  if (rules.length > 0) rulesChanged(tx);
}

function putRule(tx: Tx, op: "create" | "update", spec: BindingRuleSpec): true | ApplyError {
  const t = tx.tables;
  if (spec.ID === "") return applyError("Missing binding rule ID");
  const existing = t.aclBindingRules.get(spec.ID);
  if (op === "create" && existing) return applyError("Invalid Binding Rule: ID is already in use");
  if (op === "update" && !existing) return applyError(`cannot find binding rule ${spec.ID}`, "not-found");
  if (existing && existing.AuthMethod !== spec.AuthMethod) {
    return applyError("the AuthMethod field of an Binding Rule is immutable");
  }
  if (!t.aclAuthMethods.has(authMethodKey(spec.Namespace, spec.AuthMethod))) {
    return applyError(`cannot find auth method with name ${JSON.stringify(spec.AuthMethod)}`);
  }
  t.aclBindingRules.set(spec.ID, {
    ...spec,
    CreateIndex: existing?.CreateIndex ?? tx.index,
    ModifyIndex: tx.index,
  });
  rulesChanged(tx);
  return true;
}

function namespaceRule(x: unknown, at: string): NamespaceRule {
  const r = rawItem(x, at);
  return { Selector: optStr(r, "Selector") ?? "", BindNamespace: str(r, "BindNamespace") };
}

function decodeMethod(raw: Raw): AuthMethodSpec {
  const config = raw.Config;
  if (!isRaw(config)) throw new CommandDecodeError('command field "Config" must be an object');
  return {
    Name: str(raw, "Name"),
    Type: str(raw, "Type"),
    Description: optStr(raw, "Description") ?? "",
    DisplayName: optStr(raw, "DisplayName") ?? "",
    MaxTokenTTL: optInt(raw, "MaxTokenTTL") ?? 0,
    TokenLocality: optStr(raw, "TokenLocality") ?? "",
    Config: config,
    Namespace: optStr(raw, "Namespace") || "default",
    NamespaceRules: optList(raw, "NamespaceRules", namespaceRule) ?? [],
  };
}

function decodeRule(raw: Raw): BindingRuleSpec {
  return {
    ID: str(raw, "ID"),
    Description: optStr(raw, "Description") ?? "",
    AuthMethod: str(raw, "AuthMethod"),
    Selector: optStr(raw, "Selector") ?? "",
    BindType: str(raw, "BindType"),
    BindName: str(raw, "BindName"),
    Namespace: optStr(raw, "Namespace") || "default",
  };
}

export const authMethodHandlers: HandlerMap<AuthMethodCommand> = {
  "acl.auth-method.set": {
    decode: (r) => ({ v, type: "acl.auth-method.set", method: decodeMethod(obj(r, "method")) }),
    apply: (tx, c) => putMethod(tx, c.method),
  },
  "acl.auth-method.delete": {
    atomic: true,
    decode: (r) => ({
      v,
      type: "acl.auth-method.delete",
      ns: optStr(r, "ns") || "default",
      name: strItem(r.name, "name"),
    }),
    apply: (tx, c) => deleteMethod(tx, c.ns, c.name),
  },
  "acl.binding-rule.set": {
    decode: (r) => ({
      v,
      type: "acl.binding-rule.set",
      op: str(r, "op") === "update" ? "update" : "create",
      rule: decodeRule(obj(r, "rule")),
    }),
    apply: (tx, c) => putRule(tx, c.op, c.rule),
  },
  "acl.binding-rule.delete": {
    decode: (r) => ({ v, type: "acl.binding-rule.delete", id: str(r, "id") }),
    apply(tx, c) {
      if (!tx.tables.aclBindingRules.delete(c.id)) return false;
      rulesChanged(tx);
      return true;
    },
  },
};
