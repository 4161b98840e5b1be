import type { KubernetesConfig } from "./config.js";
import { looksLikeJwt } from "./config.js";
import { LoginRefusedError, type VerifiedIdentity } from "./identity.js";
import { type AuthMethodIO, AuthMethodIOError } from "./io.js";

/**
 * Kubernetes login, as Consul's kubeauth: the cluster's TokenReview API decides whether the bearer
 * token is a live service-account token; the ServiceAccount's `consul.hashicorp.com/service-name`
 * annotation, when present, replaces its name.
 */

const SERVICE_NAME_ANNOTATION = "consul.hashicorp.com/service-name";

function baseUrl(host: string): string {
  const withScheme = /^[a-z]+:\/\//i.test(host) ? host : `https://${host}`;
  return withScheme.replace(/\/+$/, "");
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function k8sMessage(body: unknown, status: number): string {
  const message = record(body).message;
  return typeof message === "string" && message !== "" ? message : `status ${status}`;
}

export async function kubernetesLogin(
  io: AuthMethodIO,
  config: KubernetesConfig,
  bearer: string,
): Promise<VerifiedIdentity> {
  if (!looksLikeJwt(bearer)) throw new LoginRefusedError("failed to parse and validate JWT");
  const base = baseUrl(config.Host);
  const review = await io.requestJson({
    url: `${base}/apis/authentication.k8s.io/v1/tokenreviews`,
    method: "POST",
    caCert: config.CACert,
    bearer: config.ServiceAccountJWT,
    body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token: bearer } },
  });
  if (review.status < 200 || review.status > 299) {
    throw new AuthMethodIOError(`lookup failed: ${k8sMessage(review.body, review.status)}`);
  }
  const status = record(record(review.body).status);
  if (typeof status.error === "string" && status.error !== "") {
    throw new LoginRefusedError(`lookup failed: ${status.error}`);
  }
  if (status.authenticated !== true)
    throw new LoginRefusedError("lookup failed: service account jwt not valid");
  const user = record(status.user);
  const parts = String(user.username ?? "").split(":");
  if (parts.length !== 4) throw new LoginRefusedError("lookup failed: unexpected username format");
  const [system, kind, namespace, name] = parts as [string, string, string, string];
  if (system !== "system" || kind !== "serviceaccount") {
    throw new LoginRefusedError("lookup failed: username returned is not a service account");
  }
  const sa = await io.requestJson({
    url: `${base}/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${encodeURIComponent(name)}`,
    method: "GET",
    caCert: config.CACert,
    bearer: config.ServiceAccountJWT,
  });
  if (sa.status < 200 || sa.status > 299) {
    throw new AuthMethodIOError(`annotation lookup failed: ${k8sMessage(sa.body, sa.status)}`);
  }
  const override = record(record(record(sa.body).metadata).annotations)[SERVICE_NAME_ANNOTATION];
  const vars = {
    "serviceaccount.namespace": namespace,
    "serviceaccount.name": typeof override === "string" ? override : name,
    "serviceaccount.uid": typeof user.uid === "string" ? user.uid : "",
  };
  return { fields: vars, vars };
}
