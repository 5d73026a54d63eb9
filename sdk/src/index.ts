export * from "./client.js";
export { withBranchpointTools, type AiSdkToolLike, type WrapOptions } from "./ai-sdk.js";
export { withBranchpointTool, withBranchpointAgentTools, type AgentsFunctionToolLike } from "./openai-agents.js";
