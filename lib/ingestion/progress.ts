import "server-only";
import type { ErrorCode } from "@/lib/errors";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { clusterPublisher } from "./cluster-events";

// In-process progress events of ingestion jobs, per file. The bus lives on globalThis so the
// job runner and the SSE route share it even when Next bundles them separately. On a
// PostgreSQL server every event is also published to the other app instances (LISTEN/NOTIFY,
// instance-relay.ts), which deliver it to their own bus (deliverJobEvent); a late client, or
// one whose instance lost the relay, gets the state from getJobSnapshot.

export const JOB_STAGES = ["queued", "parsing", "chunking", "embedding", "indexing", "success", "failed"] as const;
export type JobStage = (typeof JOB_STAGES)[number];

export type JobEvent =
  | { type: "progress"; stage: JobStage; percent: number; message: string }
  | { type: "done"; status: "success"; chunk_count: number; page_count: number | null; embedding_status: string; message: string }
  | { type: "error"; code: ErrorCode | string; message: string };

export type JobListener = (event: JobEvent) => void;

const g = globalThis as unknown as { __kaIngestBus?: Map<string, Set<JobListener>> };
const bus = (g.__kaIngestBus ??= new Map());

/** Listens to one file's job events; returns the unsubscribe function. */
export function subscribeJobProgress(fileId: string, listener: JobListener): () => void {
  let set = bus.get(fileId);
  if (!set) {
    set = new Set();
    bus.set(fileId, set);
  }
  set.add(listener);
  return () => {
    const s = bus.get(fileId);
    if (!s) return;
    s.delete(listener);
    if (s.size === 0) bus.delete(fileId);
  };
}

export function emitJobEvent(fileId: string, event: JobEvent): void {
  deliverJobEvent(fileId, event);
  clusterPublisher()?.progress(fileId, event);
}

/** Hands an event to this process's listeners only (events relayed from another instance). */
export function deliverJobEvent(fileId: string, event: JobEvent): void {
  const set = bus.get(fileId);
  if (!set) return;
  for (const l of [...set]) {
    try {
      l(event);
    } catch {
      // A broken listener must not break the job.
    }
  }
}

export function listenerCount(fileId: string): number {
  return bus.get(fileId)?.size ?? 0;
}

export interface JobSnapshot {
  fileId: string;
  knowledgeId: string;
  jobId: string | null;
  /** knowledge_files.status */
  fileStatus: string;
  /** ingestion_jobs.status of the latest job: queued | running | success | failed */
  jobStatus: string | null;
  stage: JobStage;
  percent: number;
  message: string;
  embeddingStatus: string;
  chunkCount: number;
  pageCount: number | null;
  errorCode: string | null;
  errorMessage: string | null;
  attempts: number;
  /** True when the latest job has finished (success or failed). */
  terminal: boolean;
  /** The event that describes this state (what a late SSE client receives at once). */
  event: JobEvent;
  updatedAt: Date;
}

/** Current state of a file's latest job, or null when the file does not exist. */
export async function getJobSnapshot(db: PrismaClient, fileId: string): Promise<JobSnapshot | null> {
  const file = await db.knowledgeFile.findUnique({
    where: { id: fileId },
    select: {
      id: true,
      knowledgeId: true,
      status: true,
      embeddingStatus: true,
      chunkCount: true,
      pageCount: true,
      errorCode: true,
      errorMessage: true,
      updatedAt: true,
    },
  });
  if (!file) return null;
  const job = await db.ingestionJob.findFirst({
    where: { fileId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  const jobStatus = job?.status ?? null;
  const terminal = jobStatus ? jobStatus === "success" || jobStatus === "failed" : file.status === "success" || file.status === "failed";
  const failed = jobStatus ? jobStatus === "failed" : file.status === "failed";
  const stage = (job?.stage ?? file.status) as JobStage;
  const percent = job?.percent ?? (terminal ? 100 : 0);
  const message = job?.message ?? "";
  let event: JobEvent;
  if (terminal && failed) {
    event = {
      type: "error",
      code: job?.errorCode ?? file.errorCode ?? "INTERNAL_ERROR",
      message: job?.errorMessage ?? file.errorMessage ?? "Processing failed.",
    };
  } else if (terminal) {
    event = {
      type: "done",
      status: "success",
      chunk_count: file.chunkCount,
      page_count: file.pageCount,
      embedding_status: file.embeddingStatus,
      message: message || "Ready",
    };
  } else {
    event = { type: "progress", stage, percent, message };
  }
  return {
    fileId: file.id,
    knowledgeId: file.knowledgeId,
    jobId: job?.id ?? null,
    fileStatus: file.status,
    jobStatus,
    stage,
    percent,
    message,
    embeddingStatus: file.embeddingStatus,
    chunkCount: file.chunkCount,
    pageCount: file.pageCount,
    errorCode: file.errorCode,
    errorMessage: file.errorMessage,
    attempts: job?.attempts ?? 0,
    terminal,
    event,
    updatedAt: job?.updatedAt ?? file.updatedAt,
  };
}
