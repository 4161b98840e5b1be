import type { AuthMethod, BindingRule, StoredNodeIdentity, StoredServiceIdentity } from "@cairn/fsm";
import { isBindType, isValidBindName } from "./bind-names.js";
import { LoginRefusedError, type VerifiedIdentity } from "./identity.js";
import { type FieldKinds, parseSelector, selects } from "./selector.js";
import { interpolate, TemplateError } from "./template.js";

/**
 * Turns a verified identity into what its token gets, as Consul's binder: every binding rule whose
 * selector matches contributes a service or node identity, or an existing role or policy (looked up by
 * name in the token's namespace; missing ones are skipped). The namespace comes from the method's
 * first matching NamespaceRule, else the method's own.
 */

export interface BindLookups {
  roleId(name: string, ns: string): string | undefined;
  policyId(name: string, ns: string): string | undefined;
}

export interface Bindings {
  readonly namespace: string;
  readonly serviceIdentities: StoredServiceIdentity[];
  readonly nodeIdentities: StoredNodeIdentity[];
  readonly roles: { ID: string }[];
  readonly policies: { ID: string }[];
}

export function grantsNothing(b: Bindings): boolean {
  return (
    b.serviceIdentities.length === 0 &&
    b.nodeIdentities.length === 0 &&
    b.roles.length === 0 &&
    b.policies.length === 0
  );
}

function matches(selector: string, fields: FieldKinds, identity: VerifiedIdentity): boolean {
  try {
    return selects(parseSelector(selector, fields), identity.fields);
  } catch {
    return false; // a selector that no longer parses matches nothing, as in Consul
  }
}

function fill(template: string, identity: VerifiedIdentity, what: string): string {
  try {
    return interpolate(template, identity.vars);
  } catch (err) {
    if (err instanceof TemplateError) throw new LoginRefusedError(`cannot compute ${what}: ${err.message}`);
    throw err;
  }
}

export function targetNamespace(method: AuthMethod, fields: FieldKinds, identity: VerifiedIdentity): string {
  for (const rule of method.NamespaceRules) {
    if (matches(rule.Selector, fields, identity)) return fill(rule.BindNamespace, identity, "bind namespace");
  }
  return method.Namespace;
}

export function bind(
  method: AuthMethod,
  rules: readonly BindingRule[],
  fields: FieldKinds,
  identity: VerifiedIdentity,
  lookups: BindLookups,
  datacenter: string,
): Bindings {
  const out: Bindings = {
    namespace: targetNamespace(method, fields, identity),
    serviceIdentities: [],
    nodeIdentities: [],
    roles: [],
    policies: [],
  };
  const seen = new Set<string>();
  for (const rule of rules) {
    if (!isBindType(rule.BindType) || !matches(rule.Selector, fields, identity)) continue;
    const name = fill(rule.BindName, identity, `"${rule.BindType}" bind name for bind target`);
    if (!isValidBindName(rule.BindType, name)) {
      throw new LoginRefusedError(
        `computed "${rule.BindType}" bind name for bind target is invalid: "${name}"`,
      );
    }
    const key = `${rule.BindType}\u0000${name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    switch (rule.BindType) {
      case "service":
        out.serviceIdentities.push({ ServiceName: name });
        break;
      case "node":
        out.nodeIdentities.push({ NodeName: name, Datacenter: datacenter });
        break;
      case "role": {
        const id = lookups.roleId(name, out.namespace);
        if (id !== undefined) out.roles.push({ ID: id });
        break;
      }
      case "policy": {
        const id = lookups.policyId(name, out.namespace);
        if (id !== undefined) out.policies.push({ ID: id });
        break;
      }
    }
  }
  return out;
}
