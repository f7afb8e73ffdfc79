// The production server's keep-alive timeout, for the servers that benchmarks and tests start
// themselves; `npm start` (scripts/start.sh, which the e2e servers run) reads the same variable.

/** KEEP_ALIVE_TIMEOUT_MS, as scripts/start.sh reads it (why 65 s: see there). */
export function keepAliveTimeoutMs(): number {
  const raw = process.env.KEEP_ALIVE_TIMEOUT_MS ?? "65000";
  // The same rule as scripts/start.sh, so a value one accepts the other does too.
  if (!/^[1-9][0-9]{0,6}$/.test(raw)) throw new Error(`KEEP_ALIVE_TIMEOUT_MS must be a whole number of milliseconds (1 to 9999999), got '${raw}'`);
  return Number(raw);
}
