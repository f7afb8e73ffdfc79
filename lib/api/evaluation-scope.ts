import { z } from "zod";
import { requireKnowledgeAccess } from "@/lib/auth/access";
import { requirePrincipal } from "@/lib/auth/session";
import { parseParams } from "./request";
import { id } from "./schemas";

// The KB evaluation's routes (issue 21): owners and editors only (viewers get FORBIDDEN,
// strangers KNOWLEDGE_NOT_FOUND); set and run ids are then looked up within the KB.
export const evalSetParams = z.object({ kb_id: id, set_id: id });
export const evalRunParams = z.object({ kb_id: id, run_id: id });

export async function evaluationScope<S extends z.ZodType<{ kb_id: string }>>(request: Request, params: unknown, schema: S) {
  const p = parseParams(params, schema) as z.infer<S>;
  const principal = await requirePrincipal(request);
  await requireKnowledgeAccess(principal.user.id, p.kb_id, "write");
  return { ...p, principal, userId: principal.user.id };
}
