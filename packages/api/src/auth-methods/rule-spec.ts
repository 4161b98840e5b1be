import type { AuthMethod, BindingRule, BindingRuleSpec } from "@cairn/fsm";
import { badRequest } from "../http/errors.js";
import { isBindType, isValidBindName } from "./bind-names.js";
import { identityFields, isAuthMethodType } from "./config.js";
import { sampleVars } from "./method-spec.js";
import type { BindingRuleBody } from "./schemas.js";
import { parseSelector, SelectorError } from "./selector.js";
import { interpolate, TemplateError } from "./template.js";

/** A validated binding rule (Consul's BindingRuleSet checks) against the method it belongs to. */

export function bindingRuleSpec(
  body: BindingRuleBody,
  id: string,
  existing: BindingRule | undefined,
  ns: string,
  methodNamed: (name: string) => AuthMethod | undefined,
): BindingRuleSpec {
  let methodName = body.AuthMethod ?? "";
  if (existing) {
    if (methodName === "") methodName = existing.AuthMethod;
    else if (methodName !== existing.AuthMethod) {
      throw badRequest("the AuthMethod field of an Binding Rule is immutable");
    }
  }
  if (methodName === "") throw badRequest("Invalid Binding Rule: no AuthMethod is set");
  const method = methodNamed(methodName);
  if (!method || !isAuthMethodType(method.Type)) {
    throw badRequest(`cannot find auth method with name ${JSON.stringify(methodName)}`);
  }
  const fields = identityFields(method.Type, method.Config);
  const selector = body.Selector ?? "";
  try {
    parseSelector(selector, fields);
  } catch (err) {
    if (err instanceof SelectorError)
      throw badRequest(`invalid Binding Rule: Selector is invalid: ${err.message}`);
    throw err;
  }
  const bindType = body.BindType ?? "";
  const bindName = body.BindName ?? "";
  if (bindType === "") throw badRequest("Invalid Binding Rule: no BindType is set");
  if (bindName === "") throw badRequest("Invalid Binding Rule: no BindName is set");
  if (!isBindType(bindType))
    throw badRequest(`Invalid Binding Rule: unknown BindType ${JSON.stringify(bindType)}`);
  let sample: string;
  try {
    sample = interpolate(bindName, sampleVars(fields));
  } catch (err) {
    if (err instanceof TemplateError)
      throw badRequest(`Invalid Binding Rule: invalid BindName: ${err.message}`);
    throw err;
  }
  if (!isValidBindName(bindType, sample)) throw badRequest("Invalid Binding Rule: invalid BindName");
  return {
    ID: id,
    Description: body.Description ?? "",
    AuthMethod: methodName,
    Selector: selector,
    BindType: bindType,
    BindName: bindName,
    Namespace: ns,
  };
}

export function bindingRuleJson(r: BindingRule): Record<string, unknown> {
  return {
    ID: r.ID,
    Description: r.Description,
    AuthMethod: r.AuthMethod,
    Selector: r.Selector,
    BindType: r.BindType,
    BindName: r.BindName,
    Namespace: r.Namespace,
    CreateIndex: r.CreateIndex,
    ModifyIndex: r.ModifyIndex,
  };
}
