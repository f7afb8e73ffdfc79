import { defineConfig } from "prisma/config";

// Used by `prisma generate` only; the app connects through driver adapters (lib/db).
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
