-- KB evaluation (issue 21): question sets, runs (a small table-based job queue) and one result
-- row per question. A run keeps the settings it ran with (min_score, models, chunking) so two
-- runs can be compared after a change. Runs left `running` by a dead process are marked failed
-- at start-up (lib/retrieval/evaluation/runner.ts).
CREATE TABLE "evaluation_sets" (
  "id" TEXT NOT NULL PRIMARY KEY,
  "knowledge_id" TEXT NOT NULL REFERENCES "knowledges"("id") ON DELETE CASCADE,
  "name" TEXT NOT NULL,
  "questions" JSONB NOT NULL,
  "question_count" INTEGER NOT NULL,
  "parse_errors" JSONB NOT NULL DEFAULT '[]',
  "parse_error_count" INTEGER NOT NULL DEFAULT 0,
  "created_by" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "evaluation_sets_knowledge_id_idx" ON "evaluation_sets"("knowledge_id");

CREATE TABLE "evaluation_runs" (
  "id" TEXT NOT NULL PRIMARY KEY,
  "knowledge_id" TEXT NOT NULL REFERENCES "knowledges"("id") ON DELETE CASCADE,
  "set_id" TEXT REFERENCES "evaluation_sets"("id") ON DELETE SET NULL,
  "set_name" TEXT NOT NULL,
  "status" TEXT NOT NULL DEFAULT 'queued',
  "total" INTEGER NOT NULL,
  "done" INTEGER NOT NULL DEFAULT 0,
  "settings" JSONB NOT NULL,
  "metrics" JSONB,
  "error_message" TEXT,
  "cancel_requested" BOOLEAN NOT NULL DEFAULT false,
  "locked_by" TEXT,
  "locked_at" TIMESTAMPTZ(3),
  "created_by" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "started_at" TIMESTAMPTZ(3),
  "finished_at" TIMESTAMPTZ(3)
);
CREATE INDEX "evaluation_runs_knowledge_id_created_at_idx" ON "evaluation_runs"("knowledge_id", "created_at");
CREATE INDEX "evaluation_runs_status_created_at_idx" ON "evaluation_runs"("status", "created_at");

CREATE TABLE "evaluation_results" (
  "run_id" TEXT NOT NULL REFERENCES "evaluation_runs"("id") ON DELETE CASCADE,
  "ordinal" INTEGER NOT NULL,
  "question" TEXT NOT NULL,
  "answerable" BOOLEAN NOT NULL,
  "expected" JSONB NOT NULL,
  "first_correct_rank" INTEGER,
  "top_score" DOUBLE PRECISION,
  "top_correct" BOOLEAN,
  "refused" BOOLEAN NOT NULL,
  "top_hits" JSONB NOT NULL,
  "error_message" TEXT,
  PRIMARY KEY ("run_id", "ordinal")
);
