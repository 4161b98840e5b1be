import { authMethodHandlers } from "../acl/auth-methods.js";
import { aclHandlers } from "../acl/handlers.js";
import { autopilotHandlers } from "../autopilot/autopilot.js";
import { catalogHandlers } from "../catalog/handlers.js";
import { configEntryHandlers } from "../config/handlers.js";
import { coordinateHandlers } from "../coordinates/handlers.js";
import { kvHandlers } from "../kv/handlers.js";
import { namespaceHandlers } from "../namespaces/handlers.js";
import { preparedQueryHandlers } from "../queries/handlers.js";
import { sessionHandlers } from "../sessions/handlers.js";
import { txnHandlers } from "../txn/handlers.js";
import type { CommandHandler, HandlerMap } from "./handler.js";
import type { Command } from "./types.js";

/** Every command type and its handler. A new area adds its handlers here. */
export const handlers: HandlerMap<Command> = {
  ...kvHandlers,
  ...sessionHandlers,
  ...txnHandlers,
  ...catalogHandlers,
  ...coordinateHandlers,
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
