import type { AutopilotConfig } from "./autopilot.js";

declare module "../store/tables.js" {
  interface TableRows {
    /** "config" -> the cluster's autopilot configuration (one row) */
    autopilot: AutopilotConfig;
  }
}
