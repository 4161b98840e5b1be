import { int, list, obj, optInt, optObj, type Raw, str, strItem } from "../commands/fields.js";
import type { HandlerMap } from "../commands/handler.js";
import { COMMAND_VERSION } from "../commands/version.js";
import { applyError } from "../store/errors.js";
import { type AclCommand, GLOBAL_MANAGEMENT_POLICY_ID } from "./commands.js";
import { decodePolicySpec, decodeRoleSpec, decodeTokenSpec } from "./records.js";
import {
  bootstrap,
  bootstrapIndex,
  deletePolicy,
  deleteRole,
  deleteToken,
  ensureBuiltins,
  putPolicy,
  putRole,
  putToken,
} from "./writes.js";

const v = COMMAND_VERSION;

const optional = <K extends string, T>(key: K, value: T | undefined) =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, T>>;

const decodeOp = (r: Raw) => (str(r, "op") === "update" ? "update" : "create");

export const aclHandlers: HandlerMap<AclCommand> = {
  "acl.token.set": {
    atomic: true,
    decode: (r) => ({
      v,
      type: "acl.token.set",
      op: decodeOp(r),
      token: decodeTokenSpec(obj(r, "token")),
      now: int(r, "now"),
    }),
    apply: (tx, c) => putToken(tx, c.op, c.token, c.now),
  },
  "acl.token.delete": {
    decode: (r) => ({ v, type: "acl.token.delete", accessors: list(r, "accessors", strItem) }),
    apply(tx, c) {
      for (const a of c.accessors) deleteToken(tx, a);
      return true;
    },
  },
  "acl.policy.set": {
    atomic: true,
    decode: (r) => ({
      v,
      type: "acl.policy.set",
      op: decodeOp(r),
      policy: decodePolicySpec(obj(r, "policy")),
    }),
    apply: (tx, c) => putPolicy(tx, c.op, c.policy),
  },
  "acl.policy.delete": {
    decode: (r) => ({ v, type: "acl.policy.delete", id: str(r, "id") }),
    apply(tx, c) {
      if (c.id === GLOBAL_MANAGEMENT_POLICY_ID) {
        return applyError("Delete operation not permitted on the builtin global-management policy");
      }
      deletePolicy(tx, c.id);
      return true;
    },
  },
  "acl.role.set": {
    atomic: true,
    decode: (r) => ({ v, type: "acl.role.set", op: decodeOp(r), role: decodeRoleSpec(obj(r, "role")) }),
    apply: (tx, c) => putRole(tx, c.op, c.role),
  },
  "acl.role.delete": {
    decode: (r) => ({ v, type: "acl.role.delete", id: str(r, "id") }),
    apply(tx, c) {
      deleteRole(tx, c.id);
      return true;
    },
  },
  "acl.bootstrap": {
    atomic: true,
    decode: (r) => ({
      v,
      type: "acl.bootstrap",
      token: decodeTokenSpec(obj(r, "token")),
      policy: decodePolicySpec(obj(r, "policy")),
      now: int(r, "now"),
      ...optional("resetIndex", optInt(r, "resetIndex")),
    }),
    apply(tx, c) {
      const at = bootstrapIndex(tx.tables);
      if (at !== undefined && c.resetIndex === undefined)
        return applyError(`ACL bootstrap no longer allowed (reset index: ${at})`);
      if (at !== undefined && c.resetIndex !== at)
        return applyError(`Invalid bootstrap reset index (specified ${c.resetIndex}, reset index: ${at})`);
      const built = ensureBuiltins(tx, c.now, c.policy);
      return built === true ? bootstrap(tx, c.token, c.now) : built;
    },
  },
  "acl.init": {
    atomic: true,
    decode: (r) => {
      const initial = optObj(r, "initialManagement");
      return {
        v,
        type: "acl.init",
        policy: decodePolicySpec(obj(r, "policy")),
        anonymous: decodeTokenSpec(obj(r, "anonymous")),
        ...(initial ? { initialManagement: decodeTokenSpec(initial) } : {}),
        now: int(r, "now"),
      };
    },
    apply(tx, c) {
      const built = ensureBuiltins(tx, c.now, c.policy, c.anonymous);
      if (built !== true) return built;
      const initial = c.initialManagement;
      if (!initial || tx.tables.aclTokenSecrets.has(initial.SecretID)) return true;
      // As Consul: the configured management token bootstraps the cluster if nothing did before.
      if (bootstrapIndex(tx.tables) === undefined) return bootstrap(tx, initial, c.now);
      return putToken(tx, "create", initial, c.now);
    },
  },
};
