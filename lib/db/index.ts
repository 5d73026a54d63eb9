// The app's data access: one Prisma client (client.ts) and the queries and
// writes the app uses, each taking a client or a transaction.
export { openDatabase, type Db, type DbClient, type Database } from "./client";
export { database, db } from "./database";
export { withSavepointWhenNeeded, withTransaction } from "./transactions";
export * from "./session-save";
export * from "./session-reads";
export * from "./session-list";
export * from "./session-outcomes";
export * from "./annotations";
export * from "./api-keys";
export * from "./users";
export * from "./invitations";
export * from "./audit";
export * from "./sign-in-failures";
