-- An experiment's edit across its cohort, with the members it did not apply to (null: no edit).
ALTER TABLE "Experiment" ADD COLUMN "cohortEdit" JSONB;
