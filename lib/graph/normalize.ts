// Entity names → the per-KB merge key, and the display name kept for people. Pure (scripts and
// tests use it directly).

// Punctuation that surrounds names in running text but is not part of them: quotes, brackets,
// book-title marks, dashes, dots and the like, in their ASCII and CJK forms.
const EDGE_PUNCT = /^[\s"'`“”‘’「」『』《》〈〉<>()（）[\]【】{}〔〕,，.。、;；:：!！?？·•\-—–_~*#|/\\]+|[\s"'`“”‘’「」『』《》〈〉<>()（）[\]【】{}〔〕,，.。、;；:：!！?？·•\-—–_~*#|/\\]+$/gu;

/** Display form: NFKC (full-width letters and digits become ASCII), spaces collapsed, surrounding punctuation removed. */
export function displayName(raw: string): string {
  return raw.normalize("NFKC").replace(/\s+/g, " ").replace(EDGE_PUNCT, "").trim();
}

/**
 * The merge key: the display form lower-cased with inner spaces and middle dots removed, so
 * "Yunjian Cloud", "yunjian  cloud", "ＹＵＮＪＩＡＮ Cloud" and "《云笺》" vs "云笺" meet.
 */
export function normalizeName(raw: string): string {
  return displayName(raw).toLowerCase().replace(/[\s·•]+/g, "");
}

/** True when a name is worth keeping: at least two characters, not only digits or punctuation. */
export function isUsefulName(name: string): boolean {
  if (name.length < 2 || name.length > 64) return false;
  if (/^[\p{N}\p{P}\p{S}\s]+$/u.test(name)) return false;
  return true;
}
