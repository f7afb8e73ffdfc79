import "server-only";
import path from "node:path";

/** ${DATA_DIR}/sample-seeded.json: written once the first-start sample was decided (sample.ts). */
export function sampleMarkerPath(dataDir: string): string {
  return path.join(path.resolve(dataDir), "sample-seeded.json");
}
