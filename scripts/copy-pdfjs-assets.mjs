// Copies pdf.js's worker, CMaps and standard fonts into public/pdfjs/<version>/ so the browser
// viewer loads them from this origin (CSP: worker-src/connect-src 'self'; no CDN). The version
// in the path keeps the worker in step with the bundled pdf.js API after an upgrade.
// Run before `next build` and `next dev` (package.json); the output is not committed.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const src = path.join(root, "node_modules", "pdfjs-dist");
const { version } = JSON.parse(readFileSync(path.join(src, "package.json"), "utf8"));
const outRoot = path.join(root, "public", "pdfjs");
const out = path.join(outRoot, version);

if (existsSync(outRoot)) rmSync(outRoot, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
cpSync(path.join(src, "build", "pdf.worker.min.mjs"), path.join(out, "pdf.worker.min.mjs"));
cpSync(path.join(src, "cmaps"), path.join(out, "cmaps"), { recursive: true });
cpSync(path.join(src, "standard_fonts"), path.join(out, "standard_fonts"), { recursive: true });
console.log(`pdf.js ${version} assets copied to public/pdfjs/${version}/`);
