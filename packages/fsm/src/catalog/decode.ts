import { CommandDecodeError } from "../commands/errors.js";
import {
  isRaw,
  num,
  optBool,
  optInt,
  optList,
  optObj,
  optOneOf,
  optStr,
  type Raw,
  rawItem,
  str,
  strItem,
  stringMap,
} from "../commands/fields.js";
import type { CheckSpec, NodeSpec, RegisterSpec, ServiceSpec } from "./commands.js";
import type { ServiceAddress, ServiceWeights } from "./records.js";

/** Decoders for the catalog objects carried by register and txn commands. */

export function decodeNodeSpec(r: Raw): NodeSpec {
  return {
    ID: optStr(r, "ID"),
    Node: str(r, "Node"),
    Address: optStr(r, "Address"),
    Datacenter: optStr(r, "Datacenter"),
    TaggedAddresses: stringMap(r, "TaggedAddresses"),
    Meta: stringMap(r, "Meta") ?? stringMap(r, "NodeMeta"),
    ModifyIndex: optInt(r, "ModifyIndex"),
  };
}

function taggedServiceAddresses(r: Raw): Record<string, ServiceAddress> | undefined {
  const v = optObj(r, "TaggedAddresses");
  if (!v) return undefined;
  const out: Record<string, ServiceAddress> = {};
  for (const [name, a] of Object.entries(v)) {
    if (!isRaw(a)) throw new CommandDecodeError(`command field "TaggedAddresses.${name}" must be an object`);
    out[name] = { Address: optStr(a, "Address") ?? "", Port: optInt(a, "Port") ?? 0 };
  }
  return out;
}

function weights(r: Raw): ServiceWeights | undefined {
  const w = optObj(r, "Weights");
  return w ? { Passing: num(w, "Passing"), Warning: num(w, "Warning") } : undefined;
}

export function decodeServiceSpec(r: Raw): ServiceSpec {
  return {
    ID: optStr(r, "ID"),
    Service: str(r, "Service"),
    Tags: optList(r, "Tags", strItem),
    Address: optStr(r, "Address"),
    TaggedAddresses: taggedServiceAddresses(r),
    Meta: stringMap(r, "Meta"),
    Port: optInt(r, "Port"),
    Kind: optStr(r, "Kind"),
    Proxy: optObj(r, "Proxy"),
    Connect: optObj(r, "Connect"),
    EnableTagOverride: optBool(r, "EnableTagOverride"),
    Weights: weights(r),
    Namespace: optStr(r, "Namespace"),
    ModifyIndex: optInt(r, "ModifyIndex"),
  };
}

export function decodeCheckSpec(r: Raw): CheckSpec {
  return {
    Node: optStr(r, "Node"),
    CheckID: optStr(r, "CheckID"),
    Name: optStr(r, "Name"),
    Status: optOneOf(r, "Status", ["passing", "warning", "critical"]),
    Notes: optStr(r, "Notes"),
    Output: optStr(r, "Output"),
    ServiceID: optStr(r, "ServiceID"),
    Type: optStr(r, "Type"),
    Definition: optObj(r, "Definition"),
    Namespace: optStr(r, "Namespace"),
    ModifyIndex: optInt(r, "ModifyIndex"),
  };
}

export function decodeRegisterSpec(r: Raw): RegisterSpec {
  const service = optObj(r, "Service");
  const check = optObj(r, "Check");
  return {
    ID: optStr(r, "ID"),
    Node: str(r, "Node"),
    Address: optStr(r, "Address") ?? "",
    Datacenter: optStr(r, "Datacenter"),
    TaggedAddresses: stringMap(r, "TaggedAddresses"),
    NodeMeta: stringMap(r, "NodeMeta"),
    Service: service ? decodeServiceSpec(service) : undefined,
    Check: check ? decodeCheckSpec(check) : undefined,
    Checks: optList(r, "Checks", (x, at) => decodeCheckSpec(rawItem(x, at))),
    SkipNodeUpdate: optBool(r, "SkipNodeUpdate"),
  };
}
