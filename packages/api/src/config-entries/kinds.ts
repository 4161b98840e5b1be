import type { KindSpec } from "./kinds/common.js";
import { proxyDefaultsKind, serviceDefaultsKind } from "./kinds/defaults.js";
import { serviceResolverKind, serviceRouterKind, serviceSplitterKind } from "./kinds/discovery-chain.js";
import { ingressGatewayKind, terminatingGatewayKind } from "./kinds/gateways.js";
import { serviceIntentionsKind } from "./kinds/intentions.js";

/** The eight kinds spec 3 names, each with its schema, normalisation and validation. */
export const CONFIG_ENTRY_KINDS: ReadonlyMap<string, KindSpec> = new Map([
  ["service-defaults", serviceDefaultsKind],
  ["proxy-defaults", proxyDefaultsKind],
  ["service-resolver", serviceResolverKind],
  ["service-splitter", serviceSplitterKind],
  ["service-router", serviceRouterKind],
  ["service-intentions", serviceIntentionsKind],
  ["ingress-gateway", ingressGatewayKind],
  ["terminating-gateway", terminatingGatewayKind],
]);
