"use client";
// Question input (SPEC §11): 200-character limit with a live counter; Enter sends, Shift+Enter
// adds a line, and Enter that confirms an IME candidate (Chinese input) never sends.
import { useEffect, useId, useRef, useState } from "react";
import { useT } from "@/components/i18n/locale-store";
import { Button } from "@/components/ui/button";
import { SendIcon, StopIcon } from "@/components/ui/icons";
import { cx } from "@/components/ui/cx";
import { canSendQuestion, clampQuestion, countChars, counterTone, isSendKey } from "./question-limit";

export interface ComposerProps {
  enabled: boolean;
  streaming: boolean;
  maxLength: number;
  onSend: (text: string) => void;
  onStop: () => void;
  /** Element ids that explain why the composer is disabled (the status notice). */
  describedBy?: string;
  initialValue?: string;
  /** ArrowUp in an empty composer brings this back (the last question asked). */
  lastQuestion?: string;
}

/** True when a key press belongs to a text field (the "/" shortcut must not steal it). */
function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
}

export function Composer({ enabled, streaming, maxLength, onSend, onStop, describedBy, initialValue = "", lastQuestion }: ComposerProps) {
  const t = useT();
  const id = useId();
  const counterId = `${id}-counter`;
  const [value, setValue] = useState(initialValue);
  const [truncated, setTruncated] = useState(false);
  const composing = useRef(false);
  const input = useRef<HTMLTextAreaElement>(null);

  // "/" anywhere outside a text field puts the cursor in the question box.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || typingIn(e.target)) return;
      const el = input.current;
      if (!el || el.disabled) return;
      e.preventDefault();
      el.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
  const count = countChars(value);
  const tone = counterTone(count, maxLength);
  const sendable = enabled && !streaming && canSendQuestion(value, maxLength);

  const apply = (raw: string) => {
    // While an IME composition is open the text is provisional; clamp once it is committed.
    if (composing.current) {
      setValue(raw);
      return;
    }
    const c = clampQuestion(raw, maxLength);
    setValue(c.text);
    setTruncated(c.truncated);
  };

  const send = () => {
    if (!sendable) return;
    onSend(value.trim());
    setValue("");
    setTruncated(false);
  };

  return (
    <form
      className={cx("rounded-2xl border bg-white shadow-sm transition-colors", enabled ? "border-slate-300 focus-within:border-indigo-500 focus-within:ring-2 focus-within:ring-indigo-500/30" : "border-slate-200 bg-slate-50")}
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <label htmlFor={id} className="sr-only">
        {t("composer.label")}
      </label>
      <textarea
        id={id}
        ref={input}
        data-testid="composer"
        rows={2}
        value={value}
        disabled={!enabled}
        aria-describedby={[counterId, describedBy].filter(Boolean).join(" ")}
        placeholder={enabled ? t("composer.placeholder") : t("composer.placeholderDisabled")}
        onChange={(e) => apply(e.target.value)}
        onCompositionStart={() => {
          composing.current = true;
        }}
        onCompositionEnd={(e) => {
          composing.current = false;
          apply(e.currentTarget.value);
        }}
        onKeyDown={(e) => {
          const native = e.nativeEvent;
          if (e.key === "ArrowUp" && !value && lastQuestion && !composing.current) {
            e.preventDefault();
            apply(lastQuestion);
            return;
          }
          // Shift+Enter and Enter inside an IME composition keep their default behaviour.
          if (isSendKey({ key: e.key, shiftKey: e.shiftKey, isComposing: native.isComposing, keyCode: native.keyCode }, composing.current)) {
            e.preventDefault();
            send();
          }
        }}
        className="block max-h-40 min-h-[3.5rem] w-full resize-none rounded-t-2xl bg-transparent px-3.5 pt-3 text-sm text-slate-900 placeholder:text-slate-400 focus:outline-none disabled:cursor-not-allowed"
      />
      <div className="flex items-center justify-between gap-2 px-2.5 pb-2.5 pt-1">
        <p
          id={counterId}
          data-testid="char-counter"
          data-tone={tone}
          className={cx("text-xs tabular-nums", tone === "limit" ? "font-medium text-rose-600" : tone === "warn" ? "text-amber-700" : "text-slate-500")}
        >
          <span aria-hidden="true">
            {count}/{maxLength}
          </span>
          <span className="sr-only">{t("composer.counter", { count, max: maxLength })}</span>
        </p>
        {streaming ? (
          <Button variant="secondary" size="sm" data-testid="stop-button" onClick={onStop} aria-label={t("composer.stop")}>
            <StopIcon />
            {t("composer.stop")}
          </Button>
        ) : (
          <Button type="submit" variant="primary" size="sm" data-testid="send-button" disabled={!sendable} aria-label={t("composer.send")}>
            <SendIcon />
            {t("composer.send")}
          </Button>
        )}
      </div>
      {truncated ? (
        <p role="status" className="px-3.5 pb-2 text-xs text-amber-700">
          {t("composer.truncated", { max: maxLength })}
        </p>
      ) : null}
    </form>
  );
}
