"use client";
import { useLocale, useLocaleStore, useT } from "@/components/i18n/locale-store";
import { GlobeIcon } from "@/components/ui/icons";
import { Button } from "@/components/ui/button";

export function LanguageSwitch() {
  const t = useT();
  const locale = useLocale();
  const setLocale = useLocaleStore((s) => s.setLocale);
  const next = locale === "zh" ? "en" : "zh";
  return (
    <Button variant="ghost" size="sm" data-testid="language-switch" aria-label={`${t("lang.switch")}: ${next === "en" ? t("lang.en") : t("lang.zh")}`} onClick={() => setLocale(next)}>
      <GlobeIcon />
      <span lang={next === "en" ? "en" : "zh-CN"}>{next === "en" ? "English" : "中文"}</span>
    </Button>
  );
}
