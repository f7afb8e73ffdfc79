-- A chunk spanning pages keeps where each page begins in its content: [[offset, page], ...]
-- (issue 20 item 4). A reference names the page of the sentence it quotes; NULL for chunks on
-- one page and for chunks indexed before this migration (they keep page_start).
ALTER TABLE "chunks" ADD COLUMN "page_marks" JSONB;
