-- CreateTable
CREATE TABLE "SignInFailure" (
    "email" TEXT NOT NULL,
    "failures" INTEGER NOT NULL,
    "lastFailureAt" TIMESTAMPTZ(3) NOT NULL,
    "lockedUntil" TIMESTAMPTZ(3),

    CONSTRAINT "SignInFailure_pkey" PRIMARY KEY ("email")
);
