import type { RegisterSpec } from "./catalog/commands.js";
import type { Command } from "./commands/types.js";
import { namespaceProblem } from "./namespaces/problem.js";
import { type ApplyError, applyError } from "./store/errors.js";
import type { Tables } from "./store/tables.js";

function registrationNamespaces(r: RegisterSpec): (string | undefined)[] {
  return [r.Service?.Namespace, r.Check?.Namespace, ...(r.Checks ?? []).map((c) => c.Namespace)];
}

/**
 * The namespaces a command would store records in. Deletes, invalidations and purges store nothing and
 * are left alone; a transaction reports namespaces per operation (txn/run.ts).
 */
function writtenNamespaces(c: Command): (string | undefined)[] {
  switch (c.type) {
    case "kv.set":
    case "kv.cas":
    case "kv.lock":
    case "kv.unlock":
    case "config-entry.set":
      return [c.ns];
    case "session.create":
      return [c.session.Namespace, ...(c.session.ServiceChecks ?? []).map((s) => s.Namespace)];
    case "catalog.register":
      return registrationNamespaces(c.registration);
    case "acl.token.set":
      return [c.token.Namespace];
    case "acl.policy.set":
      return [c.policy.Namespace];
    case "acl.role.set":
      return [c.role.Namespace];
    case "acl.auth-method.set":
      return [c.method.Namespace];
    case "acl.binding-rule.set":
      return [c.rule.Namespace];
    default:
      return [];
  }
}

/** The refusal of a command that would store records in a namespace that cannot take them. */
export function namespaceRefusal(t: Tables, c: Command): ApplyError | undefined {
  for (const ns of writtenNamespaces(c)) {
    const problem = namespaceProblem(t, ns);
    if (problem !== undefined) return applyError(problem);
  }
  return undefined;
}
