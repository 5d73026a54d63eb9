// The one entry point to the replay engine. Everything outside lib/replay
// imports from here. The engine is pure: no I/O, no Next, React or Prisma.
export * from "./canonical";
export * from "./events";
export * from "./identity";
