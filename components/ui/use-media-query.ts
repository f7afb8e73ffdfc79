"use client";
import { useSyncExternalStore } from "react";

/**
 * Subscribes to a media query. The server snapshot assumes a desktop layout, so the first
 * paint on phones switches once after hydration instead of mismatching.
 */
export function useMediaQuery(query: string, serverValue = true): boolean {
  return useSyncExternalStore(
    (cb) => {
      const m = window.matchMedia(query);
      m.addEventListener("change", cb);
      return () => m.removeEventListener("change", cb);
    },
    () => window.matchMedia(query).matches,
    () => serverValue,
  );
}
