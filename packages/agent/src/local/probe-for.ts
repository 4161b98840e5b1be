import type { CheckDefinition } from "@cairn/api";
import { dockerProbe } from "./docker-probe.js";
import { grpcProbe } from "./grpc-probe.js";
import { h2pingProbe } from "./h2ping-probe.js";
import { httpProbe, type Probe, scriptProbe, tcpProbe } from "./probes.js";
import { udpProbe } from "./udp-probe.js";

/** What some probes need from the agent beyond their definition. */
export interface ProbeEnvironment {
  /** The Docker Engine API endpoint (DOCKER_HOST's syntax). */
  dockerHost: string;
}

/** The probe an interval check runs each time; undefined for the kinds that are not probed (TTL, alias). */
export function probeFor(def: CheckDefinition, timeoutMs: number, env: ProbeEnvironment): Probe | undefined {
  switch (def.Kind) {
    case "http":
      return httpProbe(def, timeoutMs);
    case "tcp":
      return tcpProbe(def, timeoutMs);
    case "udp":
      return udpProbe(def, timeoutMs);
    case "grpc":
      return grpcProbe(def, timeoutMs);
    case "h2ping":
      return h2pingProbe(def, timeoutMs);
    case "script":
      return scriptProbe(def, timeoutMs);
    case "docker":
      return dockerProbe(def, timeoutMs, env.dockerHost);
    case "ttl":
    case "alias":
      return undefined;
  }
}
