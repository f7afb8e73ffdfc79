"use client";

import { useCallback } from "react";
import { create } from "zustand";
import { errorCopy, translate, type Locale, type MessageKey } from "./dictionary";

export const LOCALE_STORAGE_KEY = "knowledge_assistant:locale";

interface LocaleState {
  locale: Locale;
  setLocale: (locale: Locale) => void;
}

// Chinese is the default render on the server and the first client paint; a stored English
// choice is applied right after hydration (see hydrateLocale) to avoid a hydration mismatch.
export const useLocaleStore = create<LocaleState>((set) => ({
  locale: "zh",
  setLocale: (locale) => {
    set({ locale });
    try {
      window.localStorage.setItem(LOCALE_STORAGE_KEY, locale);
    } catch {
      // Storage can be unavailable (private mode); the switch still works for this page.
    }
    document.documentElement.lang = locale === "zh" ? "zh-CN" : "en";
  },
}));

export function hydrateLocale(): void {
  try {
    const stored = window.localStorage.getItem(LOCALE_STORAGE_KEY);
    if (stored === "en" || stored === "zh") useLocaleStore.getState().setLocale(stored);
  } catch {
    // ignore: default stays Chinese
  }
}

export const useLocale = () => useLocaleStore((s) => s.locale);

export type Translate = (key: MessageKey, vars?: Record<string, string | number>) => string;

export function useT(): Translate {
  const locale = useLocale();
  return useCallback((key, vars) => translate(locale, key, vars), [locale]);
}

export function useErrorCopy() {
  const locale = useLocale();
  return useCallback((code: string, message: string) => errorCopy(locale, code, message), [locale]);
}
