import { aclHandlers } from "../areas/acl.js";
import { authMethodHandlers } from "../areas/auth-methods.js";
import { autopilotHandlers } from "../areas/autopilot.js";
import { catalogHandlers, tombstoneHandlers } from "../areas/catalog.js";
import { configEntryHandlers } from "../areas/config-entries.js";
import { kvHandlers } from "../areas/kv.js";
import { namespaceHandlers } from "../areas/namespaces.js";
import { preparedQueryHandlers } from "../areas/prepared-queries.js";
import { sessionHandlers } from "../areas/session.js";
import { txnHandlers } from "../areas/txn.js";
import type { CommandHandler, HandlerMap } from "./handler.js";
import type { Command, CommandType } from "./types.js";

/** Every command type and its handler. A new area adds its file under areas/ and one line here. */
export const handlers: HandlerMap<CommandType> = {
  ...kvHandlers,
  ...sessionHandlers,
  ...txnHandlers,
  ...catalogHandlers,
  ...tombstoneHandlers,
  ...configEntryHandlers,
  ...preparedQueryHandlers,
  ...aclHandlers,
  ...authMethodHandlers,
  ...namespaceHandlers,
  ...autopilotHandlers,
};

const byType = new Map<string, CommandHandler<Command>>(
  Object.entries(handlers as Record<string, CommandHandler<Command>>),
);

export function handlerFor(type: string): CommandHandler<Command> | undefined {
  return byType.get(type);
}
