import type { NextConfig } from "next";

// Security headers for every response (SPEC §12). Scripts are the app's own; the nonce-less
// 'unsafe-inline' for scripts is needed by Next's inline bootstrap, styles by Tailwind.
const csp = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'" + (process.env.NODE_ENV === "development" ? " 'unsafe-eval'" : ""),
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

// The same value as the original-download route's own header (app/v1/…/original/route.ts).
const ORIGINAL_CSP = "sandbox; default-src 'none'";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // Native and WASM packages are loaded by Node at run time, not bundled (STACK-NOTES).
  serverExternalPackages: [
    "@electric-sql/pglite",
    "@electric-sql/pglite-pgvector",
    "pglite-prisma-adapter",
    "@prisma/adapter-pg",
    "pg",
    "@node-rs/jieba",
    "@node-rs/argon2",
    "unpdf",
    "mammoth",
    "opencc-js",
    "busboy",
    "yauzl",
    "htmlparser2",
  ],
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "Content-Security-Policy", value: csp },
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
          { key: "X-Frame-Options", value: "DENY" },
          { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
        ],
      },
      {
        // Uploaded originals keep their route's stricter policy: these headers override what a
        // route handler sets, and the last rule for a key wins, so the sandbox is restated here.
        source: "/v1/knowledges/:kb_id/files/:file_id/original",
        headers: [{ key: "Content-Security-Policy", value: ORIGINAL_CSP }],
      },
    ];
  },
};

export default nextConfig;
