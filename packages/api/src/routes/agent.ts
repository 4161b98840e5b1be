import { filterSchemas } from "@cairn/discovery";
import type { HealthStatus } from "@cairn/fsm";
import { JsonSyntaxError, readJson } from "@cairn/json";
import { type Context, Hono } from "hono";
import type { AgentBackend, LocalService, MonitorLevel } from "../agent/backend.js";
import { checkUpdateBody, tokenBody } from "../agent/definition-schema.js";
import {
  DefinitionError,
  decode,
  parseCheckDefinition,
  parseServiceDefinition,
} from "../agent/definitions.js";
import { waitForNewHash } from "../agent/hash-wait.js";
import { collectHostInfo } from "../agent/host-info.js";
import { type Aggregate, aggregate, healthResponse, SEVERITY } from "../agent/local-health.js";
import { monitorResponse } from "../agent/monitor-stream.js";
import { agentCheckJson, agentServiceJson, contentHash } from "../agent/shapes.js";
import { type AclAccess, type AclResourceType, type Authorizer, allowAll } from "../authorizer.js";
import { parseFilterParam, searchParams } from "../catalog/query.js";
import { readTextLimited } from "../http/body.js";
import { clientGone } from "../http/client-gone.js";
import type { ApiEnv } from "../http/env.js";
import { badRequest, notFound, permissionDenied } from "../http/errors.js";
import { route } from "../http/methods.js";
import { jsonResponse } from "../http/respond.js";

export interface AgentRoutesOptions {
  nodeName: string;
  datacenter: string;
  authorizer?: Authorizer;
  /** Largest JSON body; default 1 MB. */
  maxBodyBytes?: number;
  /** Whether ACLs are on (`/agent/token` answers 401 otherwise, as Consul does). */
  aclEnabled?: boolean;
}

/** Token names `/agent/token/:name` accepts, mapped to the agent's own name for each (legacy names included). */
const TOKEN_NAMES: Readonly<Record<string, string>> = {
  default: "default",
  agent: "agent",
  agent_recovery: "agent_recovery",
  agent_master: "agent_recovery",
  replication: "replication",
  acl_token: "default",
  acl_agent_token: "agent",
  acl_agent_master_token: "agent_recovery",
  acl_replication_token: "replication",
};

const LEVELS: ReadonlySet<string> = new Set(["trace", "debug", "info", "warn", "error"]);
const TRUE = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const FALSE = new Set(["0", "f", "F", "FALSE", "false", "False"]);
const TEXT = { "Content-Type": "text/plain; charset=utf-8" };

/**
 * The local agent's endpoints under /v1/agent: services, checks (with the TTL updates), maintenance, self,
 * reload, metrics, monitor and tokens. IDs may contain `/`, so ID parameters take the rest of the path.
 */
export function agentRoutes(agent: AgentBackend, options: AgentRoutesOptions): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const authorizer = options.authorizer ?? allowAll;
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const allow = (c: Context<ApiEnv>, type: AclResourceType, name: string, access: AclAccess) => {
    if (authorizer.authorize(c.get("token"), c.get("namespace"), type, name, access) !== "allow")
      throw permissionDenied();
  };
  const body = async (c: Context<ApiEnv>): Promise<unknown> => {
    const text = await readTextLimited(c, maxBody, (n) => `Request body too large (${n} bytes)`);
    if (text.trim() === "") return {};
    try {
      return readJson(text);
    } catch (err) {
      if (err instanceof JsonSyntaxError) throw badRequest(`Request decode failed: ${err.message}`);
      throw err;
    }
  };
  const definition = <T>(parse: () => T): T => {
    try {
      return parse();
    } catch (err) {
      if (err instanceof DefinitionError) throw badRequest(err.message);
      throw err;
    }
  };
  const ok = (c: Context<ApiEnv>) => c.body(null, 200);

  route(app, "/services", {
    GET: (c) => {
      const filter = parseFilterParam(searchParams(c.req.url), filterSchemas.nodeService);
      const out: Record<string, unknown> = {};
      for (const s of agent.services()) {
        if (authorizer.authorize(c.get("token"), s.Namespace, "service", s.Service, "read") !== "allow")
          continue;
        const json = agentServiceJson(s, options.datacenter);
        if (filter === undefined || filter(json)) out[s.ID] = json;
      }
      return jsonResponse(c, out);
    },
  });
  route(app, "/service/register", {
    PUT: async (c) => {
      const raw = await body(c);
      const def = definition(() => parseServiceDefinition(raw));
      allow(c, "service", def.Service, "write");
      const replace = c.get("query").get("replace-existing-checks");
      await agent.registerService(def, {
        replaceExistingChecks:
          replace !== undefined && parseBool(replace || "true", "replace-existing-checks"),
        token: c.get("token"),
      });
      return ok(c);
    },
  });
  route(app, "/service/deregister/:id{.+}", {
    PUT: async (c) => {
      const id = param(c, "id");
      const service = agent.service(id);
      if (service) allow(c, "service", service.Service, "write");
      await agent.deregisterService(id);
      return ok(c);
    },
  });
  route(app, "/service/maintenance/:id{.+}", {
    PUT: async (c) => {
      const id = param(c, "id");
      const enable = parseEnable(c);
      const service = agent.service(id);
      if (service) allow(c, "service", service.Service, "write");
      await agent.serviceMaintenance(id, enable, c.get("query").get("reason") ?? "");
      return ok(c);
    },
  });
  route(app, "/service/:id{.+}", {
    GET: async (c) => {
      const id = param(c, "id");
      const read = () => {
        const service = agent.service(id);
        if (service === undefined) throw notFound(`unknown service ID: ${id}`);
        allow(c, "service", service.Service, "read");
        const json = agentServiceJson(service, options.datacenter);
        return { json, hash: contentHash(json) };
      };
      const known = c.get("query").get("hash");
      const { json, hash } =
        known === undefined
          ? read()
          : await waitForNewHash(
              read,
              known,
              c.get("query").durationNs("wait", "Invalid wait time"),
              () => agent.servicesChanged(),
              clientGone(c),
            );
      c.header("X-Consul-ContentHash", hash);
      c.header("X-Service-ContentHash", hash);
      return jsonResponse(c, { ...json, ContentHash: hash });
    },
  });

  // The local health of a service, for load balancers: 200 passing, 429 warning, 503 critical or maintenance.
  const localHealth = (service: LocalService) => {
    const checks = agent.checks().filter((ch) => ch.ServiceID === service.ID || ch.ServiceID === "");
    return {
      AggregatedStatus: aggregate(checks),
      Service: agentServiceJson(service, options.datacenter),
      Checks: checks.map(agentCheckJson),
    };
  };
  route(app, "/health/service/id/:id{.+}", {
    GET: (c) => {
      const id = param(c, "id");
      const service = agent.service(id);
      if (service === undefined) throw notFound(`ServiceId ${id} not found`);
      allow(c, "service", service.Service, "read");
      const health = localHealth(service);
      return healthResponse(c, health.AggregatedStatus, health);
    },
  });
  route(app, "/health/service/name/:name{.+}", {
    GET: (c) => {
      const name = param(c, "name");
      allow(c, "service", name, "read");
      const entries = agent
        .services()
        .filter((s) => s.Service === name)
        .map(localHealth);
      if (entries.length === 0) throw notFound(`ServiceName ${name} Not Found`);
      const worst = entries.reduce(
        (w, e) => (SEVERITY[e.AggregatedStatus] > SEVERITY[w] ? e.AggregatedStatus : w),
        "passing" as Aggregate,
      );
      return healthResponse(c, worst, entries);
    },
  });

  route(app, "/checks", {
    GET: (c) => {
      const filter = parseFilterParam(searchParams(c.req.url), filterSchemas.check);
      const out: Record<string, unknown> = {};
      for (const check of agent.checks()) {
        const [type, name] = check.ServiceID ? ["service", check.ServiceName] : ["node", options.nodeName];
        if (
          authorizer.authorize(c.get("token"), check.Namespace, type as AclResourceType, name, "read") !==
          "allow"
        )
          continue;
        const json = agentCheckJson(check);
        if (filter === undefined || filter(json)) out[check.CheckID] = json;
      }
      return jsonResponse(c, out);
    },
  });
  route(app, "/check/register", {
    PUT: async (c) => {
      const raw = await body(c);
      const def = definition(() => parseCheckDefinition(raw));
      allowCheckWrite(c, def.ServiceID);
      await agent.registerCheck(def, c.get("token"));
      return ok(c);
    },
  });
  route(app, "/check/deregister/:id{.+}", {
    PUT: async (c) => {
      const id = param(c, "id");
      allowCheckWrite(c, checkServiceOf(id));
      await agent.deregisterCheck(id);
      return ok(c);
    },
  });
  for (const [verb, status] of [
    ["pass", "passing"],
    ["warn", "warning"],
    ["fail", "critical"],
  ] as const) {
    route(app, `/check/${verb}/:id{.+}`, {
      PUT: async (c) => {
        const id = param(c, "id");
        allowCheckWrite(c, checkServiceOf(id));
        await agent.updateTtl(id, status, c.get("query").get("note") ?? "");
        return ok(c);
      },
    });
  }
  route(app, "/check/update/:id{.+}", {
    PUT: async (c) => {
      const raw = await body(c);
      const { Status, Output } = definition(() => decode(checkUpdateBody, raw));
      const status = Status ?? "";
      if (status !== "passing" && status !== "warning" && status !== "critical") {
        throw badRequest(`Invalid check status: '${status}'`);
      }
      const id = param(c, "id");
      allowCheckWrite(c, checkServiceOf(id));
      await agent.updateTtl(id, status as HealthStatus, Output ?? "");
      return ok(c);
    },
  });

  route(app, "/maintenance", {
    PUT: async (c) => {
      const enable = parseEnable(c);
      allow(c, "node", options.nodeName, "write");
      await agent.nodeMaintenance(enable, c.get("query").get("reason") ?? "");
      return ok(c);
    },
  });
  route(app, "/self", {
    GET: (c) => {
      allow(c, "agent", options.nodeName, "read");
      return jsonResponse(c, agent.self());
    },
  });
  route(app, "/host", {
    GET: async (c) => {
      allow(c, "operator", "", "read");
      return jsonResponse(c, await collectHostInfo());
    },
  });
  route(app, "/reload", {
    PUT: async (c) => {
      allow(c, "agent", options.nodeName, "write");
      await agent.reload();
      return ok(c);
    },
  });
  route(app, "/metrics", {
    GET: (c) => {
      allow(c, "agent", options.nodeName, "read");
      if (c.get("query").get("format") !== "prometheus") return jsonResponse(c, agent.metrics());
      const text = agent.prometheus();
      if (text === undefined) {
        return c.body("Prometheus is not enabled since its retention time is not positive", 415, TEXT);
      }
      return c.body(text, 200, { "Content-Type": "text/plain; version=0.0.4; charset=utf-8" });
    },
  });
  route(app, "/monitor", {
    GET: (c) => {
      allow(c, "agent", options.nodeName, "read");
      const level = (c.get("query").get("loglevel") || "info").toLowerCase();
      if (!LEVELS.has(level)) throw badRequest(`Unknown log level: ${level}`);
      // Consul asks only whether the parameter is there (`?logjson` alone is how its CLI sends it).
      const json = c.get("query").has("logjson");
      return monitorResponse(c, agent, level as MonitorLevel, json);
    },
  });
  route(app, "/token/:name", {
    PUT: async (c) => {
      if (!options.aclEnabled) return c.body("ACL support disabled", 401, TEXT);
      allow(c, "agent", options.nodeName, "write");
      const name = TOKEN_NAMES[param(c, "name")];
      if (name === undefined) throw notFound(`Token "${param(c, "name")}" is unknown`);
      const raw = await body(c);
      const parsed = definition(() => decode(tokenBody, raw));
      await agent.setToken(name, parsed.Token ?? "");
      return ok(c);
    },
  });

  /** A check's write permission: service:write on its service, else node:write on this node. */
  function allowCheckWrite(c: Context<ApiEnv>, serviceId: string): void {
    if (authorizer === allowAll) return;
    const service = serviceId ? agent.service(serviceId) : undefined;
    if (service) allow(c, "service", service.Service, "write");
    else allow(c, "node", options.nodeName, "write");
  }
  function checkServiceOf(id: string): string {
    return agent.checks().find((check) => check.CheckID === id)?.ServiceID ?? "";
  }
  return app;
}

/** A path parameter; the route pattern guarantees one, a missing one reads as empty. */
function param(c: Context<ApiEnv>, name: string): string {
  return c.req.param(name) ?? "";
}

/** `?enable=` is required and a Go boolean. */
function parseEnable(c: Context<ApiEnv>): boolean {
  const raw = c.get("query").get("enable");
  if (raw === undefined) throw badRequest("Missing value for enable");
  if (TRUE.has(raw)) return true;
  if (FALSE.has(raw)) return false;
  throw badRequest(`Invalid value for enable: "${raw}"`);
}

function parseBool(raw: string | undefined, name: string): boolean {
  if (raw === undefined || raw === "") return false;
  if (TRUE.has(raw)) return true;
  if (FALSE.has(raw)) return false;
  throw badRequest(`Invalid value for ${name}: "${raw}"`);
}
