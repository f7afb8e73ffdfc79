// The ports of the end-to-end servers. E2E_PORT_BASE moves all of them at once, so two checkouts
// on one machine can run their suites side by side (default 3100: local 3100, password 3101,
// model 3102, test model server 4011).
const base = Number(process.env.E2E_PORT_BASE ?? 3100);
if (!Number.isInteger(base) || base < 1024 || base > 60000) {
  throw new Error(`E2E_PORT_BASE must be an integer port between 1024 and 60000, got ${process.env.E2E_PORT_BASE}`);
}

export const PORTS = { local: base, password: base + 1, model: base + 2, fakeModel: base + 911, fakeProvider: base + 912 } as const;
