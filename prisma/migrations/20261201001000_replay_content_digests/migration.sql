-- What a comparison needs of a step's output and of an input other than a model call's:
-- whether two are equal. The database keeps an md5 of each (jsonb text is canonical, so equal
-- JSON gives equal digests, and JSON null or no value gives none), computed on every write
-- whoever writes the row, and for the rows already stored when the column is added. The
-- comparison then reads 32 characters per step instead of the outputs and tool arguments.
ALTER TABLE "Event"
ADD COLUMN "outputDigest" TEXT GENERATED ALWAYS AS (CASE WHEN output IS NULL OR output = 'null'::jsonb THEN NULL ELSE md5(output::text) END) STORED,
ADD COLUMN "plainInputDigest" TEXT GENERATED ALWAYS AS (CASE WHEN kind = 'model_call' OR input IS NULL OR input = 'null'::jsonb THEN NULL ELSE md5(input::text) END) STORED;

ALTER TABLE "ReplayStep"
ADD COLUMN "outputDigest" TEXT GENERATED ALWAYS AS (CASE WHEN output IS NULL OR output = 'null'::jsonb THEN NULL ELSE md5(output::text) END) STORED,
ADD COLUMN "plainInputDigest" TEXT GENERATED ALWAYS AS (CASE WHEN kind = 'model_call' OR input IS NULL OR input = 'null'::jsonb THEN NULL ELSE md5(input::text) END) STORED;
