import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { FlowGallery } from "@/components/flows/flow-gallery";

export const metadata: Metadata = { title: "流程画廊 · 知识库助手", robots: { index: false } };

// Read the flag per request (not at build time): one build serves both test and production.
export default async function FlowsPage() {
  await connection();
  if (process.env.ENABLE_FLOW_GALLERY !== "true" && process.env.NODE_ENV !== "development") notFound();
  return <FlowGallery />;
}
