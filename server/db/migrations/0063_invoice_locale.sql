-- The locale a document was first made in, kept so that a re-made invoice (new billing details) or a
-- retried render speaks the same language. NULL until the first render (and for documents made before 0063,
-- which resolve it once more on their next render and keep it then).
ALTER TABLE "invoice" ADD COLUMN "locale" text;
