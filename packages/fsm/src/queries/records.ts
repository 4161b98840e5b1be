export interface PreparedQueryTemplate {
  readonly Type: string;
  readonly Regexp: string;
  readonly RemoveEmptyTags: boolean;
}

/** A stored prepared query. `Service` is the API's validated ServiceQuery object. */
export interface PreparedQuery {
  readonly ID: string;
  readonly Name: string;
  readonly Session: string;
  readonly Token: string;
  readonly Template: PreparedQueryTemplate;
  readonly Service: Readonly<Record<string, unknown>>;
  readonly DNS: { readonly TTL: string };
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

export type PreparedQuerySpec = Omit<PreparedQuery, "CreateIndex" | "ModifyIndex">;

/** A template answers every name its Regexp or name prefix matches. */
export const isQueryTemplate = (q: PreparedQuery | PreparedQuerySpec): boolean => q.Template.Type !== "";
