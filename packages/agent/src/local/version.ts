/** The Consul release whose HTTP API Cairn speaks; clients gate features on Config.Version. */
export const CONSUL_API_VERSION = "1.15.0";
