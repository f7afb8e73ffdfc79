// Display helpers for sizes and file types; pure so the gallery fixtures render identically.

export function formatBytes(n: number | null | undefined): string {
  if (n == null || !Number.isFinite(n)) return "—";
  if (n < 1024) return `${n} B`;
  const units = ["KB", "MB", "GB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 10 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`;
}

export function fileTypeLabel(fileType: string | null | undefined, name: string): string {
  const t = (fileType || name.split(".").pop() || "").toLowerCase().replace(/^\./, "");
  if (t.includes("pdf")) return "PDF";
  if (t.includes("word") || t === "docx") return "DOCX";
  if (t === "md" || t === "markdown" || t.includes("markdown")) return "MD";
  if (t.includes("html") || t === "htm") return "HTML";
  if (t === "txt" || t.includes("text/plain") || t === "text") return "TXT";
  return t ? t.toUpperCase().slice(0, 6) : "FILE";
}

/** Dictionary key of a role; unknown roles read as the most restricted one. */
export function roleKey(role: string): "kb.role.owner" | "kb.role.editor" | "kb.role.viewer" {
  return role === "owner" ? "kb.role.owner" : role === "editor" ? "kb.role.editor" : "kb.role.viewer";
}
