"use client";

import { QueryClient, QueryClientProvider, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type ReactNode } from "react";
import { useRouter } from "next/navigation";
import { isApiError, isUnauthenticated } from "@/components/api/http-client";
import { hydrateLocale } from "@/components/i18n/locale-store";
import { registerBuiltinOpeners } from "@/components/sources/builtin-openers";
import { registerPdfPageRenderer } from "@/components/viewer/pdf-page-seam";
import { PdfJsPage } from "@/components/viewer/pdfjs-page";

// Openers must exist before the first reference card renders (it decides link vs plain text).
registerBuiltinOpeners();
// PDF pages drawn by pdf.js (loaded lazily on first use), text as the fallback.
registerPdfPageRenderer(PdfJsPage);

const PUBLIC_PATHS = ["/sign-in", "/sign-up", "/flows"];

/** A session that expires mid-use sends the user to sign in, whichever query noticed it. */
function AuthRedirect() {
  const client = useQueryClient();
  const router = useRouter();
  useEffect(
    () =>
      client.getQueryCache().subscribe((event) => {
        if (event.type !== "updated" || event.action.type !== "error" || !isUnauthenticated(event.action.error)) return;
        if (PUBLIC_PATHS.some((p) => window.location.pathname.startsWith(p))) return;
        router.replace("/sign-in");
      }),
    [client, router],
  );
  return null;
}

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: {
            staleTime: 5_000,
            refetchOnWindowFocus: false,
            // Business errors (not found, forbidden) will not change on retry; network ones may.
            retry: (count, e) => count < 1 && (!isApiError(e) || e.code === "NETWORK_ERROR" || e.code === "INTERNAL_ERROR"),
          },
        },
      }),
  );
  useEffect(() => {
    hydrateLocale();
  }, []);
  return (
    <QueryClientProvider client={client}>
      <AuthRedirect />
      {children}
    </QueryClientProvider>
  );
}
