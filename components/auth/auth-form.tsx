"use client";
// Sign-in and sign-up for password mode. In local mode the server signs everyone in, so the
// form is replaced by a link back to the workspace.
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { api, isApiError } from "@/components/api/http-client";
import { useMe } from "@/components/api/queries";
import { useErrorCopy, useT } from "@/components/i18n/locale-store";
import { LanguageSwitch } from "@/components/workspace/language-switch";
import { Button } from "@/components/ui/button";
import { SparkIcon } from "@/components/ui/icons";
import { Spinner } from "@/components/ui/spinner";
import { TextField } from "@/components/ui/text-field";

export function AuthForm({ mode }: { mode: "sign-in" | "sign-up" }) {
  const t = useT();
  const errorCopy = useErrorCopy();
  const router = useRouter();
  const qc = useQueryClient();
  const me = useMe();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const signUp = mode === "sign-up";
  const localMode = me.data?.auth_mode === "local";
  const alreadySignedIn = me.isSuccess && me.data.auth_mode === "password";

  return (
    <div className="flex min-h-dvh flex-col bg-gradient-to-b from-indigo-50 to-slate-50">
      <div className="flex justify-end p-3">
        <LanguageSwitch />
      </div>
      <main className="flex flex-1 items-start justify-center px-4 pt-[8vh]">
        <div className="w-full max-w-sm rounded-2xl border border-slate-200 bg-white p-7 shadow-sm">
          <div className="mb-6 flex items-center gap-2">
            <span aria-hidden="true" className="rounded-lg bg-indigo-600 p-1.5 text-white">
              <SparkIcon />
            </span>
            <span className="text-sm font-semibold text-slate-700">{t("app.name")}</span>
          </div>
          <h1 className="text-xl font-semibold text-slate-900">{signUp ? t("auth.signUpTitle") : t("auth.signInTitle")}</h1>
          {me.isPending ? (
            <p className="mt-6 flex items-center gap-2 text-sm text-slate-500">
              <Spinner /> {t("common.loading")}
            </p>
          ) : localMode || alreadySignedIn ? (
            <div className="mt-6 flex flex-col gap-4">
              {localMode ? <p className="text-sm text-slate-600">{t("auth.localModeNotice")}</p> : null}
              <Link href="/" className="inline-flex h-10 items-center justify-center rounded-lg bg-indigo-600 px-4 text-sm font-medium text-white hover:bg-indigo-700 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:ring-offset-2">
                {t("auth.goWorkspace")}
              </Link>
            </div>
          ) : (
            <form
              className="mt-6 flex flex-col gap-4"
              data-testid={`${mode}-form`}
              onSubmit={async (e) => {
                e.preventDefault();
                const form = new FormData(e.currentTarget);
                const body: Record<string, string> = { email: String(form.get("email") ?? ""), password: String(form.get("password") ?? "") };
                if (signUp) body.name = String(form.get("name") ?? "");
                setPending(true);
                setError(null);
                try {
                  // Sign-up answers the same whether or not the e-mail had an account and signs
                  // nobody in (issue 16); signing in with the same password follows, which only
                  // works for the account just made or for its holder.
                  if (signUp) await api("/v1/auth/sign-up", { method: "POST", body });
                  try {
                    await api("/v1/auth/sign-in", { method: "POST", body: { email: body.email, password: body.password } });
                  } catch (err) {
                    if (signUp && isApiError(err) && err.code === "INVALID_CREDENTIALS") throw new Error(t("auth.signUpSignInFailed"));
                    throw err;
                  }
                  qc.clear();
                  router.replace("/");
                } catch (err) {
                  setError(isApiError(err) ? errorCopy(err.code, err.message).text : err instanceof Error ? err.message : String(err));
                  setPending(false);
                }
              }}
            >
              {signUp ? <p className="text-xs text-slate-600">{t("auth.signUpNotice")}</p> : null}
              {signUp ? <TextField label={t("auth.name")} name="name" autoComplete="name" maxLength={100} /> : null}
              <TextField label={t("auth.email")} name="email" type="email" autoComplete="email" required maxLength={254} />
              <TextField
                label={t("auth.password")}
                name="password"
                type="password"
                autoComplete={signUp ? "new-password" : "current-password"}
                required
                minLength={signUp ? 8 : undefined}
                maxLength={200}
                hint={signUp ? t("auth.passwordHint") : undefined}
              />
              {error ? (
                <p role="alert" data-testid="auth-error" className="rounded-lg bg-rose-50 px-3 py-2 text-sm text-rose-800">
                  {error}
                </p>
              ) : null}
              <Button type="submit" variant="primary" disabled={pending} data-testid="auth-submit">
                {pending ? <Spinner className="h-3.5 w-3.5" /> : null}
                {pending ? t("auth.submitting") : signUp ? t("auth.signUp") : t("auth.signIn")}
              </Button>
              <p className="text-center text-sm text-slate-500">
                {signUp ? t("auth.haveAccount") : t("auth.noAccount")}{" "}
                <Link href={signUp ? "/sign-in" : "/sign-up"} className="font-medium text-indigo-700 hover:underline focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500">
                  {signUp ? t("auth.signIn") : t("auth.signUp")}
                </Link>
              </p>
            </form>
          )}
        </div>
      </main>
    </div>
  );
}
