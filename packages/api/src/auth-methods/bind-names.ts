import { MAX_SERVICE_NAME_LENGTH } from "@cairn/acl";

/** Binding rule targets and the names each accepts once `${...}` is filled in (Consul's rules). */

export const BIND_TYPES = ["service", "node", "role", "policy"] as const;
export type BindType = (typeof BIND_TYPES)[number];

export function isBindType(type: string): type is BindType {
  return (BIND_TYPES as readonly string[]).includes(type);
}

const IDENTITY_NAME = /^[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?$/;
const ROLE_NAME = /^[A-Za-z0-9_-]{1,256}$/;
const POLICY_NAME = /^[A-Za-z0-9_-]{1,128}$/;

export function isValidBindName(type: BindType, name: string): boolean {
  switch (type) {
    case "service":
    case "node":
      return name.length <= MAX_SERVICE_NAME_LENGTH && IDENTITY_NAME.test(name);
    case "role":
      return ROLE_NAME.test(name);
    case "policy":
      return POLICY_NAME.test(name);
  }
}
