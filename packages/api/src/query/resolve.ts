import {
  type CompiledTemplate,
  compileTemplate,
  type PreparedQueryDefinition,
  renderTemplate,
  TemplateError,
} from "@cairn/discovery";
import type { PreparedQuery, StateView } from "@cairn/fsm";
import { badRequest, notFound } from "../http/errors.js";
import { toDefinition } from "./definition.js";

/** Stored records never change (an update stores a new one), so each template compiles once. */
const compiled = new WeakMap<PreparedQuery, CompiledTemplate>();

export interface ResolvedQuery {
  readonly stored: PreparedQuery;
  /** The query to run: the stored one, or the template rendered for the looked-up name. */
  readonly rendered: PreparedQueryDefinition;
  /** The prepared-query table's index. */
  readonly index: number;
}

/** The query an execute or explain names (ID, name, or template prefix); 404 `Query not found` as Consul. */
export function resolveQuery(view: StateView, idOrName: string, segment: string): ResolvedQuery {
  const read = view.preparedQueryResolve(idOrName);
  const found = read.value;
  if (found === undefined) throw notFound("Query not found");
  if (found === "template-by-id") {
    throw badRequest("prepared query templates can only be resolved up by name, not by ID");
  }
  if (found.Template.Type === "") return { stored: found, rendered: toDefinition(found), index: read.index };
  let ct = compiled.get(found);
  try {
    if (ct === undefined) {
      ct = compileTemplate(toDefinition(found));
      compiled.set(found, ct);
    }
    return { stored: found, rendered: renderTemplate(ct, idOrName, { segment }), index: read.index };
  } catch (err) {
    if (err instanceof TemplateError) throw badRequest(err.message);
    throw err;
  }
}
