import type { CheckDefinition } from "@cairn/api";
import {
  type ChannelOptions,
  credentials,
  makeClientConstructor,
  type ServiceError,
  status,
} from "@grpc/grpc-js";
import { service as healthService } from "grpc-health-check";
import type { Probe, ProbeResult } from "./probes.js";

/** A client of the standard `grpc.health.v1.Health` service, from the proto grpc-health-check ships. */
const HealthClient = makeClientConstructor(healthService, "grpc.health.v1.Health");

interface HealthResponse {
  status: string;
}

type CheckCall = (
  request: { service: string },
  options: { deadline: Date },
  callback: (err: ServiceError | null, response?: HealthResponse) => void,
) => void;

/**
 * A gRPC check as Consul runs it: `grpc.health.v1.Health/Check` on `GRPC` ("host:port", or
 * "host:port/service" to ask about one service), over TLS with `GRPCUseTLS`. Passing on SERVING; any other
 * serving status, an error status (NOT_FOUND for an unknown service) or no answer within the timeout is
 * critical. Each run opens its own channel, as Consul dials for each check, so a restarted server is seen at
 * once rather than after a channel's reconnect backoff.
 */
export function grpcProbe(def: CheckDefinition, timeoutMs: number): Probe {
  const slash = def.GRPC.indexOf("/");
  const address = slash < 0 ? def.GRPC : def.GRPC.slice(0, slash);
  const service = slash < 0 ? "" : def.GRPC.slice(slash + 1);
  const channelCredentials = def.GRPCUseTLS
    ? credentials.createSsl(null, null, null, { rejectUnauthorized: !def.TLSSkipVerify })
    : credentials.createInsecure();
  const options: ChannelOptions = def.TLSServerName
    ? { "grpc.ssl_target_name_override": def.TLSServerName, "grpc.default_authority": def.TLSServerName }
    : {};
  return () =>
    new Promise<ProbeResult>((resolve) => {
      const client = new HealthClient(address, channelCredentials, options);
      const check = (client as unknown as { Check: CheckCall }).Check.bind(client);
      check({ service }, { deadline: new Date(Date.now() + timeoutMs) }, (err, response) => {
        client.close();
        if (err) return resolve({ status: "critical", output: goStatusText(err) });
        const serving = response?.status ?? "UNKNOWN";
        if (serving === "SERVING") {
          return resolve({ status: "passing", output: `gRPC check ${def.GRPC}: success` });
        }
        resolve({ status: "critical", output: `gRPC ${def.GRPC} serving status: ${serving}` });
      });
    });
}

/** grpc-go's names of the status codes (`NotFound`), as its errors print them. */
const CODE_NAMES: Readonly<Record<number, string>> = {
  ...Object.fromEntries(
    Object.entries(status)
      .filter((entry): entry is [string, number] => typeof entry[1] === "number")
      .map(([name, code]) => [code, camel(name)]),
  ),
  [status.OK]: "OK",
};

function camel(name: string): string {
  return name
    .toLowerCase()
    .split("_")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("");
}

/** A failed call worded as grpc-go words it: `rpc error: code = NotFound desc = unknown service`. */
function goStatusText(err: ServiceError): string {
  return `rpc error: code = ${CODE_NAMES[err.code] ?? err.code} desc = ${err.details || err.message}`;
}
