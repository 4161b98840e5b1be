import type { CoordinateEntry } from "./records.js";

declare module "../store/tables.js" {
  interface TableRows {
    /** node \0 segment -> coordinate */
    coordinates: CoordinateEntry;
  }
  interface TableIndexes {
    coordinates: number;
  }
}

/** Blocking-query channel of the whole table. */
export const coordinatesChannel = "coordinates";
