"use client";
// Client-side state of uploads in flight and live parse progress per file. The file rows
// themselves come from the server (React Query); this store only adds what the server has
// not reported yet: upload bytes sent, upload errors, and the latest parse-job event.
import { create } from "zustand";
import type { ParseProgressEvent } from "@/components/api/types";

export interface UploadItem {
  id: string;
  kbId: string;
  name: string;
  size: number;
  progress: number;
  phase: "uploading" | "uploaded" | "error";
  fileId?: string;
  error?: { code: string; message: string };
}

export interface ParseProgress extends ParseProgressEvent {
  error?: { code: string; message: string };
}

interface UploadState {
  uploads: UploadItem[];
  progress: Record<string, ParseProgress>;
  /** Files whose progress stream could not be opened; the file list polls for them instead. */
  streamFailed: Record<string, true>;
  add: (items: UploadItem[]) => void;
  update: (id: string, patch: Partial<UploadItem>) => void;
  remove: (id: string) => void;
  setProgress: (fileId: string, p: ParseProgress | null) => void;
  markStreamFailed: (fileId: string) => void;
}

export const useUploadStore = create<UploadState>((set) => ({
  uploads: [],
  progress: {},
  streamFailed: {},
  add: (items) => set((s) => ({ uploads: [...s.uploads, ...items] })),
  update: (id, patch) => set((s) => ({ uploads: s.uploads.map((u) => (u.id === id ? { ...u, ...patch } : u)) })),
  remove: (id) => set((s) => ({ uploads: s.uploads.filter((u) => u.id !== id) })),
  setProgress: (fileId, p) =>
    set((s) => {
      const progress = { ...s.progress };
      if (p) progress[fileId] = p;
      else delete progress[fileId];
      const streamFailed = { ...s.streamFailed };
      if (!p) delete streamFailed[fileId];
      return { progress, streamFailed };
    }),
  markStreamFailed: (fileId) => set((s) => ({ streamFailed: { ...s.streamFailed, [fileId]: true } })),
}));
