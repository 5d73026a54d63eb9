-- A watch asked to evaluate inside its window owes one evaluation at the window's end. owedSince marks it (null when
-- nothing is owed), so at most one delayed evaluation is queued per watch, and the sweep finds one whose job was lost.
ALTER TABLE "Watch" ADD COLUMN "owedSince" TIMESTAMPTZ(3);

-- A webhook attempt is recorded as sending before its POST. note says when an attempt was sent again because the
-- outcome of an earlier send is unknown (its worker stopped between the POST and recording the answer).
ALTER TABLE "WatchDelivery" ADD COLUMN "note" TEXT;
